import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { createMatcher } from './lib/matcher/screen.ts';
let t = performance.now();
const snap = loadSnapshot();
console.log('load', (performance.now()-t).toFixed(0), 'people', snap.people.length, snap.lists.map(l=>l.id+':'+l.individual_count+':'+l.category).join(' '));
t = performance.now();
const m = createMatcher(snap);
console.log('index', (performance.now()-t).toFixed(0));
const subjects = [
 { name: 'Vladimir Putin', dob: '1952-10-07' }, { name: 'Путин Владимир' }, { name: 'Mohammed' }, { name: 'Joe Biden' , dob: '1942-11-20'}, {name: 'Bernie Sanders'},
 { name: 'John Smith', dob: '1980-01-01' }, { name: 'Usama bin Laden' }, {name:'Kim Jong Un'}, {name:'Abdul Rahman', dob:'1970-01-01'},
];
for (const s of subjects) { const r = m.screen(s, ['sanctions','pep','criminal']);
  console.log(s.name, r.risk_level, 'S', r.sanctions_result?.risk_level, r.sanctions_result?.matches.slice(0,2).map(x=>x.primary_name+' '+x.name_score+' '+x.risk_level), 'P', r.pep_result?.risk_level, r.pep_result?.matches.slice(0,2).map(x=>x.primary_name+' '+x.name_score), 'C', r.criminal_result?.risk_level); }
console.log(m.screen(subjects[0], ['sanctions']).sanctions_result?.narrative);
console.log(m.screen({name:'Zzyzx Qwerty'}, ['sanctions']).sanctions_result?.narrative);

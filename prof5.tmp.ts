import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { createMatcher } from './lib/matcher/screen.ts';
import { CHECK_TYPES } from './lib/watchlists/types.ts';
const snap = loadSnapshot();
let c0 = process.cpuUsage(); const m = createMatcher(snap); let c = process.cpuUsage(c0); console.log('build cpu ms', ((c.user+c.system)/1000).toFixed(0));
const qs = snap.people.filter((_,i)=>i%5===0).map(p=>({name:p.names[p.names.length-1].name}));
for (let k=0;k<3;k++){ const c0 = process.cpuUsage(); for (const q of qs) m.screen(q, CHECK_TYPES); const c = process.cpuUsage(c0); console.log('cpu µs/screen', ((c.user+c.system)/qs.length).toFixed(0)); }

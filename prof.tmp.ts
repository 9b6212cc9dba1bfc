import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { tokeniseName } from './lib/matcher/normalise.ts';
import { normaliseCountries } from './lib/watchlists/countries.ts';
import { buildIndex, deletions } from './lib/matcher/index.ts';
const snap = loadSnapshot();
let names = 0; let t = performance.now();
for (const p of snap.people) for (const n of p.names) { tokeniseName(n.name); names++; }
console.log('tokenise', names, (performance.now()-t).toFixed(0));
t = performance.now();
for (const p of snap.people) { p.nationalities.flatMap(n=>normaliseCountries(n)); p.locations.map(l=>normaliseCountries(l)); }
console.log('countries', (performance.now()-t).toFixed(0));
for (let k=0;k<3;k++){ t = performance.now(); const idx = buildIndex(snap); console.log('build', (performance.now()-t).toFixed(0), 'vocab', idx.vocab.length, 'del', idx.byDeletion.size, 'names', idx.names.length); }

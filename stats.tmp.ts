import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { buildIndex, lookupToken } from './lib/matcher/index.ts';
import { tokeniseName } from './lib/matcher/normalise.ts';
import { tokenSimilarity } from './lib/matcher/score.ts';
const snap = loadSnapshot(); const idx = buildIndex(snap);
const qs = snap.people.filter((_,i)=>i%50===0).map(p=>p.names[p.names.length-1].name);
let lookups=0, sims=0, posts=0, n=0; const big: [number,string][] = [];
for (const q of qs) { let qp = 0; for (const t of tokeniseName(q)) { const s = new Set<number>(); lookupToken(idx, t, s); lookups += s.size; for (const v of s) { sims++; if (tokenSimilarity(t, idx.vocab[v]) >= 0.75) qp += idx.postings[v].length; } } posts += qp; n++; big.push([qp,q]); }
console.log('per query: vocab hits', (lookups/n).toFixed(0), 'postings (qualifying)', (posts/n).toFixed(0));
big.sort((a,b)=>b[0]-a[0]); console.log(big.slice(0,8));

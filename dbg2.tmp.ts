import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { buildIndex, lookupToken } from './lib/matcher/index.ts';
import { tokeniseName } from './lib/matcher/normalise.ts';
import { scoreTokens } from './lib/matcher/score.ts';
const idx = buildIndex(loadSnapshot());
const s = new Set<number>(); const q = tokeniseName('Putin'); lookupToken(idx, q[0], s);
for (const v of s) { console.log(idx.vocab[v].text, idx.weights[v], idx.postings[v].length); for (const n of idx.postings[v]) { const nm = idx.names[n]; const lt = Array.from(nm.tokens, id=>idx.vocab[id]); const w = new Map(idx.vocab.map((t,i)=>[t,idx.weights[i]])); console.log('  ', nm.display, scoreTokens(q, lt, t=> w.get(t) ?? 1).score); } }

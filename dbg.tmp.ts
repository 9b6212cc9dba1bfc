import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { createMatcher } from './lib/matcher/screen.ts';
import { compareNames } from './lib/matcher/score.ts';
const m = createMatcher(loadSnapshot());
for (const n of ['Präsident Putin','Putin']) { const r = m.screen({name:n},['sanctions']); console.log(n, r.sanctions_result?.matches.map(x=>x.primary_name+' '+x.name_score+' '+x.risk_level)); }
console.log(compareNames('Präsident Putin','PUTIN, Vladimir Vladimirovich'));

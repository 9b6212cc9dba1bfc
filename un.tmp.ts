import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { createMatcher } from './lib/matcher/screen.ts';
const m = createMatcher(loadSnapshot());
const rows = parse(readFileSync('/work/shared/eval/pairs/yente-screening-fixtures/un_treated_vs_listed_pairs.csv'), {columns:true}) as Record<string,string>[];
for (const r of rows) {
  const res = m.screen({ name: r.query_name, dob: r.query_dob||undefined, nationality: /^[a-z]{2}$/.test(r.query_nationality)? r.query_nationality.toUpperCase(): r.query_nationality, location: r.query_pob||undefined }, ['sanctions']);
  const un = res.sanctions_result!.matches.filter(x => x.list_id==='un_sc');
  const ok = un.some(x => ['MEDIUM','HIGH','CRITICAL'].includes(x.risk_level));
  if (!ok) console.log(r.name_perturbed, r.dob_perturbed, '|', r.query_name, '|', r.listed_name, r.query_dob, r.listed_dob, r.query_nationality, '=>', un.slice(0,2).map(x=>`${x.primary_name} ${x.name_score} ${x.risk_level} dob:${x.explanation.dob.status} nat:${x.explanation.nationality.status}`).join(' ; '), res.sanctions_result!.matches.length);
}

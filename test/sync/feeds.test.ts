import { describe, expect, it } from 'vitest';
import { type FeedFile, feedFor, LIST_FEEDS } from '../../lib/sync/feeds.ts';
import { createGetFile, parseOrigin } from '../../lib/sync/fetch.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { LIST_SOURCES } from '../../lib/watchlists/sources.ts';
import type { ListId } from '../../lib/watchlists/types.ts';

const context = { fetchedOn: '2026-11-23' };

describe('list feeds', () => {
  it('feed only shipped lists, each from https URLs', () => {
    const shipped = LIST_SOURCES.map((s) => s.descriptor.id);
    for (const feed of LIST_FEEDS) {
      expect(shipped).toContain(feed.listId);
      for (const url of feed.officialUrls) expect(url).toMatch(/^https:\/\//);
    }
  });

  // Australia's workbook reads the same way; left out here because it alone takes seconds to parse.
  it.each<ListId>(['ofac_cons', 'ca_sema'])(
    'read %s from the official file with the parser of the bundled copy',
    async (listId) => {
      const feed = feedFor(listId);
      const files = await feed?.download(createGetFile(parseOrigin(defaultDataDir())));
      const synced = feed?.parse(files ?? new Map(), context);
      const bundled = LIST_SOURCES.find((s) => s.descriptor.id === listId)?.read(defaultDataDir());
      expect(synced?.people.length).toBeGreaterThan(0);
      expect(synced?.people).toEqual(bundled?.people);
    },
  );

  it('pages through the FBI wanted API until its total is reached', async () => {
    const requested: string[] = [];
    const page = (n: number, items: number) =>
      Buffer.from(JSON.stringify({ total: 120, page: n, items: Array.from({ length: items }, () => ({})) }));
    const get = async (file: FeedFile) => {
      requested.push(file.url);
      const n = Number(new URL(file.url).searchParams.get('page'));
      return page(n, n < 3 ? 50 : 20);
    };
    const files = await feedFor('fbi_wanted')?.download(get);
    expect(requested).toEqual(
      [1, 2, 3].map((n) => `https://api.fbi.gov/wanted/v1/list?pageSize=50&page=${n}`),
    );
    expect(files?.size).toBe(3);
  });

  it('reads INTERPOL web service answers, one query per nationality', async () => {
    const requested: string[] = [];
    const get = async (file: FeedFile) => {
      requested.push(file.url);
      const nationality = new URL(file.url).searchParams.get('nationality');
      const notices =
        nationality === 'RU'
          ? [
              {
                forename: 'SAID-IBRAGIM',
                name: 'KHASIEV',
                date_of_birth: '2000/07/20',
                entity_id: '2020/63916',
                nationalities: ['RU'],
              },
            ]
          : [];
      return Buffer.from(JSON.stringify({ total: notices.length, _embedded: { notices } }));
    };
    const feed = feedFor('interpol_red');
    const parsed = feed?.parse((await feed.download(get)) ?? new Map(), context);
    expect(requested.length).toBeGreaterThan(190);
    expect(requested).toContain(
      'https://ws-public.interpol.int/notices/v1/red?nationality=RU&resultPerPage=160',
    );
    expect(parsed?.people.map((p) => [p.primary_name, p.nationalities])).toEqual([
      ['SAID-IBRAGIM KHASIEV', ['Russia']],
    ]);
  });
});

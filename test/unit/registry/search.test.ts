import { describe, expect, it } from 'vitest';
import { buildIndex, FIELD_WEIGHTS, parameterText, tokenize } from '../../../src/registry/search.js';

/** Large catalogs: what the ranking of `GET /tools?q=` and tool_search is made of. */
describe('tokenize', () => {
  it('splits camelCase, PascalCase with acronyms, snake_case and kebab-case names, lowercased', () => {
    expect(tokenize('getWeather')).toEqual(['get', 'weather']);
    expect(tokenize('HTTPServerStatus')).toEqual(['http', 'server', 'statu']);
    expect(tokenize('list_open_tickets')).toEqual(['list', 'open', 'ticket']);
    expect(tokenize('issues/create-comment')).toEqual(['issu', 'creat', 'comment']);
    expect(tokenize('getV2Users')).toEqual(['get', 'v2', 'user']);
  });

  it('drops punctuation and stop words', () => {
    expect(tokenize('Get the weather, for a city!')).toEqual(['get', 'weather', 'citi']);
    expect(tokenize('  ...  ')).toEqual([]);
  });

  it('stems with Porter, so the forms of a word meet: create/created/creating, repository/repositories', () => {
    expect(new Set(['create', 'created', 'creating', 'creates'].flatMap(tokenize))).toEqual(new Set(['creat']));
    expect(tokenize('repositories')).toEqual(tokenize('repository'));
    expect(tokenize('Running searches')).toEqual(['run', 'search']);
  });

  it('spells out the short forms API names use (repo, org, pr)', () => {
    expect(tokenize('repos_list_for_org')).toEqual([...tokenize('repositories list'), ...tokenize('organization')]);
    expect(tokenize('review a PR')).toEqual(['review', 'pull', 'request']);
  });

  it('keeps letters of other scripts', () => {
    expect(tokenize('Wetter für München')).toEqual(['wetter', 'für', 'münchen']);
  });
});

describe('parameterText', () => {
  it('collects property names and descriptions, nested objects and array items included', () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        options: { type: 'object', properties: { units: { type: 'string', description: 'metric or imperial' } } },
        tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } },
      },
    };
    expect(parameterText(schema)).toEqual(['city', 'City name', 'options', 'units', 'metric or imperial', 'tags', 'label']);
    expect(parameterText(undefined)).toEqual([]);
  });
});

describe('BM25F scoring', () => {
  const docs = [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
    {
      name: 'get_forecast',
      description: 'Weather forecast for the next days',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
    { name: 'send_mail', description: 'Send an email message', parameters: { type: 'object', properties: { to: { type: 'string' } } } },
  ];
  const index = buildIndex(docs);

  it('is BM25F to the digit on a tiny corpus: per-field length normalization, weighted sum, saturation, Lucene IDF', () => {
    // "forecast": only in get_forecast, once in its name (2 tokens, average 2) and once in its description
    // (4 tokens after stop words: weather, forecast, next, day; the three descriptions average (3+4+3)/3).
    const k1 = 1.2;
    const b = 0.75;
    const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const weighted = FIELD_WEIGHTS.name / (1 - b + (b * 2) / 2) + FIELD_WEIGHTS.description / (1 - b + (b * 4) / (10 / 3));
    const expected = (idf * weighted * (k1 + 1)) / (weighted + k1);
    const [hit, ...rest] = index.scores('forecast');
    expect(rest).toEqual([]);
    expect(hit!.doc.name).toBe('get_forecast');
    expect(hit!.score).toBeCloseTo(expected, 12);
  });

  it('a query scores the sum of its distinct words; repeating a word changes nothing', () => {
    const one = (q: string) => index.scores(q).find((s) => s.doc.name === 'get_forecast')!.score;
    expect(one('forecast city')).toBeCloseTo(one('forecast') + one('city'), 12);
    expect(one('forecast forecast')).toBe(one('forecast'));
  });

  it('the name counts more than the description: "weather" ranks get_weather over get_forecast', () => {
    expect(index.search('weather', 10).map((d) => d.name)).toEqual(['get_weather', 'get_forecast']);
  });

  it('a rarer word counts more: "city weather" is still led by get_weather, send_mail never appears', () => {
    expect(index.search('city weather', 10).map((d) => d.name)).toEqual(['get_weather', 'get_forecast']);
  });

  it('equal scores come in name order', () => {
    const scores = index.scores('get');
    expect(scores[0]!.score).toBe(scores[1]!.score);
    expect(scores.map((s) => s.doc.name)).toEqual(['get_forecast', 'get_weather']);
  });

  it('nothing matching, or nothing but stop words: an empty list', () => {
    expect(index.search('lorem ipsum', 10)).toEqual([]);
    expect(index.search('the a of', 10)).toEqual([]);
    expect(index.search('', 10)).toEqual([]);
  });

  it('limit and include: the filter applies before the limit, so filtered-out tools never take a place', () => {
    expect(index.search('weather', 1).map((d) => d.name)).toEqual(['get_weather']);
    expect(index.search('weather', 1, (d) => d.name !== 'get_weather').map((d) => d.name)).toEqual(['get_forecast']);
  });

  it('an empty catalog finds nothing', () => {
    expect(buildIndex([]).search('weather', 10)).toEqual([]);
  });
});

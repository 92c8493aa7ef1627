/** What asked for a magic link: browser/OS families from the UA, a sanitised place label. */
import { describe, expect, it } from 'vitest';
import { browserOf, osOf, placeLabel, requestedBy } from '../../../src/services/magic-link/requested-by.js';

const UAS: [string, string, string][] = [
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
    'Edge',
    'Windows',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0',
    'Opera',
    'Windows',
  ],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox', 'Linux'],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    'Safari',
    'macOS',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.0.0 Mobile/15E148 Safari/604.1',
    'Chrome',
    'iOS',
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
    'Chrome',
    'Android',
  ],
  ['curl/8.5.0', 'Unknown', 'Unknown'],
  ['', 'Unknown', 'Unknown'],
];

describe('requestedBy', () => {
  it.each(UAS)('%s → %s on %s', (ua, browser, os) => {
    expect(browserOf(ua)).toBe(browser);
    expect(osOf(ua)).toBe(os);
  });

  it('keeps families, the place and the time, never the raw User-Agent', () => {
    const r = requestedBy({ userAgent: UAS[0]![0], place: 'Zürich, CH' }, Date.UTC(2026, 10, 27, 10, 44));
    expect(r).toEqual({ browser: 'Edge', os: 'Windows', place: 'Zürich, CH', at: '2026-11-27T10:44:00.000Z' });
    expect(JSON.stringify(r)).not.toContain('Mozilla');
  });

  it('lets only a short, plain place label through (it lands in emails)', () => {
    expect(placeLabel('  Saint-Étienne,   FR ')).toBe('Saint-Étienne, FR');
    for (const bad of ['<b>x</b>', 'a\nb: c', 'https://evil.example', 'x'.repeat(65), '', undefined, null])
      expect(placeLabel(bad)).toBeNull();
  });
});

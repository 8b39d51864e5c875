import { describe, expect, it } from 'vitest';
import type { Accounting } from '../../src/accounting/accounting.js';
import { type HeldReply, TurnRelease } from '../../src/http/release.js';

const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

function accounting(commit: () => void): Accounting {
  return { append: () => {}, commit, foldNow: async () => {}, close: async () => 0 };
}

function reply(keyed: boolean, events: string[], name: string): HeldReply {
  return { keyed, send: () => events.push(`${name} sent`), refuse: () => events.push(`${name} refused`) };
}

describe('replies held for their turn', () => {
  it('go out together at the end of the turn, after one commit of its records', async () => {
    const events: string[] = [];
    const turns = new TurnRelease(accounting(() => events.push('commit')));
    turns.hold(reply(true, events, 'lookup'));
    turns.hold(reply(true, events, 'bulk'));
    expect(events).toEqual([]);
    await turnEnd();
    expect(events).toEqual(['commit', 'lookup sent', 'bulk sent']);
  });

  it('are refused when their records could not be written, except those that recorded nothing', async () => {
    const events: string[] = [];
    const full = () => {
      throw new Error('ENOSPC: no space left on device');
    };
    const turns = new TurnRelease(accounting(full));
    turns.hold(reply(true, events, 'chunk'));
    turns.hold(reply(false, events, 'anonymous 401'));
    await turnEnd();
    expect(events).toEqual(['chunk refused', 'anonymous 401 sent']);
  });
});

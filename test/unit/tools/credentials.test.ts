import { describe, expect, it } from 'vitest';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

const caller = { tenant: 'acme', keyId: 'key-1', user: undefined };

describe('createEnvCredentials: the environment answers every tool and caller', () => {
  it('answers a set variable, for any tool and caller', async () => {
    const provider = createEnvCredentials({ TOKEN: 't0k' });
    expect(await provider.for('a_tool', caller).get('TOKEN')).toBe('t0k');
    expect(await provider.for('mcp_server').get('TOKEN')).toBe('t0k');
  });

  it('takes the values once: a later change of the environment is not seen', async () => {
    const env: NodeJS.ProcessEnv = { TOKEN: 'first' };
    const provider = createEnvCredentials(env);
    env.TOKEN = 'second';
    expect(await provider.for('a_tool', caller).get('TOKEN')).toBe('first');
  });

  it('rejects an unset or empty name, naming it and no value', async () => {
    const credentials = createEnvCredentials({ EMPTY: '' }).for('a_tool', caller);
    await expect(credentials.get('MISSING')).rejects.toThrow(/MISSING/);
    await expect(credentials.get('EMPTY')).rejects.toThrow(/EMPTY/);
  });

  it('names at start-up what cannot be answered: unset, empty, or holding a line break', () => {
    const provider = createEnvCredentials({ SET: 'value-xyz', EMPTY: '', EVIL: 'x\r\ny' });
    expect(provider.problem('SET', 'header "a"')).toBeUndefined();
    expect(provider.problem('MISSING', 'header "a"')).toBe(
      'header "a" uses ${MISSING}, which is not set in the environment; set MISSING for the gateway, or take it out',
    );
    expect(provider.problem('EMPTY', 'env B')).toMatch(/^env B uses \$\{EMPTY\}, which is not set/);
    expect(provider.problem('EVIL', 'header "c"')).toBe(
      'header "c" uses ${EVIL}, whose value holds a line break or NUL; set EVIL to a single line',
    );
  });
});

// The credentials repository remembers what it read; a client choosing the keys it looks up must
// not be able to grow what is remembered, and what was remembered must not outlive a change.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { createCredentialsRepo } from '../../src/store/credentials-repo.js';

const fixtures = (publicKey: string) => ({
  merchants: [{ id: 'mer_a', name: 'Shop A', webhook_secret: 'whsec_aaaaaaaa', api_keys: ['sk_test_a'], terminals: [{ terNO: 7001, public_key: publicKey, private_key: 'pv_a' }] }],
});

describe('credentials repository', () => {
  it('finds a terminal that was seeded after it was looked up and missed', () => {
    const db = openDatabase(':memory:');
    const repo = createCredentialsRepo(db);
    expect(repo.terminalByPublicKey('pk_late')).toBeUndefined();
    expect(repo.terminal(7001)).toBeUndefined();
    // Written behind the repository's back, as an import does, without forget().
    db.prepare("INSERT INTO merchants (id, name, webhook_secret) VALUES ('mer_a', 'Shop A', 'whsec_aaaaaaaa')").run();
    db.prepare("INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (7001, 'mer_a', 'pk_late', 'pv_a')").run();
    expect(repo.terminalByPublicKey('pk_late')).toMatchObject({ terNo: 7001, merchantId: 'mer_a' });
    expect(repo.terminal(7001)).toMatchObject({ publicKey: 'pk_late' });
    db.close();
  });

  it('answers from memory until forgotten, and a seed forgets', () => {
    const db = openDatabase(':memory:');
    const repo = createCredentialsRepo(db);
    repo.seed(fixtures('pk_one'));
    expect(repo.terminal(7001)?.publicKey).toBe('pk_one');
    db.prepare("UPDATE terminals SET public_key = 'pk_two' WHERE ter_no = 7001").run();
    expect(repo.terminal(7001)?.publicKey).toBe('pk_one');
    repo.forget();
    expect(repo.terminal(7001)?.publicKey).toBe('pk_two');
    repo.seed(fixtures('pk_three'));
    expect(repo.terminal(7001)?.publicKey).toBe('pk_three');
    expect(repo.terminalByPublicKey('pk_three')?.terNo).toBe(7001);
    db.close();
  });

  it('hands out frozen answers, so no caller can change what the next one gets', () => {
    const db = openDatabase(':memory:');
    const repo = createCredentialsRepo(db);
    repo.seed(fixtures('pk_one'));
    expect(Object.isFrozen(repo.terminal(7001))).toBe(true);
    expect(Object.isFrozen(repo.terminals())).toBe(true);
    expect(Object.isFrozen(repo.terminals()[0])).toBe(true);
    db.close();
  });
});

// The credentials repository remembers what it read; a client choosing the keys it looks up must
// not be able to grow what is remembered, and what was remembered must not outlive a change.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { createCredentialsRepo } from '../../src/store/credentials-repo.js';

const fixtures = (publicKey: string) => ({
  merchants: [
    {
      id: 'mer_a',
      name: 'Shop A',
      webhook_secret: 'whsec_aaaaaaaa',
      api_keys: ['sk_test_a'],
      terminals: [{ terNO: 7001, public_key: publicKey, private_key: 'pv_a' }],
    },
  ],
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

  it('adds a merchant made on demand to what it remembers, and takes a deleted one out, in the order the tables give', () => {
    const db = openDatabase(':memory:');
    const repo = createCredentialsRepo(db);
    repo.seed(fixtures('pk_one'));
    const lists = () => ({
      merchants: repo.merchants(),
      terminals: repo.terminals(),
      apiKeys: repo.apiKeys(),
      encrypted: repo.terminalOfEncryptedData('Q2lwaGVypk_b'),
    });
    const before = lists();
    const made = {
      id: 'mer_b',
      name: 'Shop B',
      webhookSecret: 'whsec_bbbbbbbb',
      currency: 'EUR',
      apiKey: 'sk_test_0',
      terminals: [
        { terNo: 7003, publicKey: 'pk_b', privateKey: 'pv_b' },
        { terNo: 7002, publicKey: 'pk_b2', privateKey: 'pv_b' },
      ],
    };
    db.transaction(() => repo.create(made))();
    repo.added(made);
    const remembered = lists();
    repo.forget();
    // What was remembered is what the database now says, and still frozen.
    expect(remembered).toEqual(lists());
    expect(remembered.terminals.map((t) => t.terNo)).toEqual([7001, 7002, 7003]);
    expect(remembered.encrypted).toMatchObject({ terNo: 7003, merchantId: 'mer_b' });
    expect([...remembered.terminals, ...remembered.apiKeys, ...remembered.merchants].every((item) => Object.isFrozen(item))).toBe(true);
    expect(repo.merchant('mer_b')?.name).toBe('Shop B');
    expect(repo.terminalByPublicKey('pk_b')?.terNo).toBe(7003);
    db.transaction(() => {
      for (const table of ['api_keys', 'terminals']) db.prepare(`DELETE FROM ${table} WHERE merchant_id = 'mer_b'`).run();
      db.prepare("DELETE FROM merchants WHERE id = 'mer_b'").run();
    })();
    repo.removed('mer_b');
    expect(lists()).toEqual(before);
    expect(repo.terminalByPublicKey('pk_b')).toBeUndefined();
    expect(repo.merchant('mer_b')).toBeUndefined();
    db.close();
  });

  it('matches encrypted_data to the terminal whose public key ends it, the longest in a database made before suffixes were refused', () => {
    const db = openDatabase(':memory:');
    const repo = createCredentialsRepo(db);
    repo.seed(fixtures('pk_test_1001'));
    // Clashing keys as an older sandbox let POST /_sandbox/merchants store them.
    db.prepare("INSERT INTO merchants (id, name, webhook_secret) VALUES ('mer_old', 'Old', 'whsec_oooooooo')").run();
    const insert = db.prepare("INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (?, 'mer_old', ?, 'pv_o')");
    insert.run(500, '1001');
    insert.run(501, 'Apk_test_1001');
    repo.forget();
    expect(repo.terminalOfEncryptedData('Q2lwaGVyBpk_test_1001')?.terNo).toBe(7001);
    expect(repo.terminalOfEncryptedData('Q2lwaGVyApk_test_1001')?.terNo).toBe(501);
    expect(repo.terminalOfEncryptedData('Q2lwaGVy_1002')).toBeUndefined();
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

  it('hands out frozen answers, so no caller can change what the next one gets (lists are typed readonly)', () => {
    const db = openDatabase(':memory:');
    const repo = createCredentialsRepo(db);
    repo.seed(fixtures('pk_one'));
    expect(Object.isFrozen(repo.terminal(7001))).toBe(true);
    expect(Object.isFrozen(repo.terminals()[0])).toBe(true);
    expect(Object.isFrozen(repo.apiKeys()[0])).toBe(true);
    expect(Object.isFrozen(repo.merchants()[0])).toBe(true);
    db.close();
  });
});

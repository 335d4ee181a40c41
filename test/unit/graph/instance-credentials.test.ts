import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCredentials, readCredentials } from '../../../src/graph/local/instance-state';

describe('createCredentials', () => {
  it('generates passwords neo4j-admin cannot mistake for an option, stored owner-only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-credentials-'));
    const passwords = new Set<string>();
    // With base64url, 1 password in 64 started with '-' and broke set-initial-password.
    for (let i = 0; i < 200; i++) {
      const { user, password } = createCredentials(dir);
      expect(user).toBe('neo4j');
      expect(password).toMatch(/^[0-9a-f]{36}$/);
      passwords.add(password);
    }
    expect(passwords.size).toBe(200);
    expect(readCredentials(dir)?.password).toMatch(/^[0-9a-f]{36}$/);
    const file = fs.readdirSync(dir).map((name) => path.join(dir, name))[0] as string;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

// Webhook handlers written in PHP and Python, run by their own interpreters on 127.0.0.1:<free
// port>, each verifying the plain X-Sandbox-Signature with the seeded merchant's secret the way
// merchants write it: over the raw body (correct), or over the body parsed and serialised again
// (json_encode(json_decode($raw)) in PHP, json.dumps(json.loads(raw)) in Python: the commonest
// webhook bug). 401 to a signature that does not verify, 200 otherwise.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait-for.js';

/** How a handler gets the bytes it verifies. */
export type Verifies = 'raw' | 'reserialised';

/** A handler process and its URL. */
export interface LanguageHandler {
  url: string;
  close(): Promise<void>;
}

const PHP_HANDLER = `<?php
$raw = file_get_contents('php://input');
// The bug: the body parsed, then written again (json_encode escapes "/" and non-ASCII, drops the indentation).
$verified = getenv('VERIFIES') === 'raw' ? $raw : json_encode(json_decode($raw));
$expected = 'sha256=' . hash_hmac('sha256', (string) $verified, getenv('WEBHOOK_SECRET'));
if (!hash_equals($expected, $_SERVER['HTTP_X_SANDBOX_SIGNATURE'] ?? '')) {
    http_response_code(401);
    echo 'invalid signature';
    exit;
}
echo 'ok';
`;

const PYTHON_HANDLER = `import hashlib, hmac, json, os
from http.server import BaseHTTPRequestHandler, HTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            # The bug: the body parsed, then written again (", " and ": ", non-ASCII as \\\\u escapes, no indentation).
            verified = raw if os.environ["VERIFIES"] == "raw" else json.dumps(json.loads(raw)).encode()
        except ValueError:
            verified = b""
        expected = "sha256=" + hmac.new(os.environ["WEBHOOK_SECRET"].encode(), verified, hashlib.sha256).hexdigest()
        ok = hmac.compare_digest(expected, self.headers.get("X-Sandbox-Signature", ""))
        answer = b"ok" if ok else b"invalid signature"
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass

server = HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_port, flush=True)
server.serve_forever()
`;

/** Whether a program runs here (`php --version`). */
export function installed(command: string): boolean {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Starts `command args` and reads its port from what it prints; `close` ends it. */
async function started(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, port: RegExp): Promise<LanguageHandler> {
  const child: ChildProcess = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // An interpreter starting on a busy machine may take seconds: a generous deadline, polled.
  const found = await waitFor(
    () => port.exec(output)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined),
    `${command} to listen`,
    60_000,
  );
  if (found === 'exited') throw new Error(`${command} exited: ${output}`);
  return {
    url: `http://127.0.0.1:${found}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

/** A PHP handler on PHP's built-in server. */
export function startPhpHandler(verifies: Verifies, secret: string): Promise<LanguageHandler> {
  const dir = mkdtempSync(join(tmpdir(), 'php-handler-'));
  writeFileSync(join(dir, 'index.php'), PHP_HANDLER);
  return started(
    'php',
    ['-S', '127.0.0.1:0', 'index.php'],
    dir,
    { VERIFIES: verifies, WEBHOOK_SECRET: secret },
    /\(http:\/\/127\.0\.0\.1:(\d+)\)/,
  );
}

/** A Python handler on http.server. */
export function startPythonHandler(verifies: Verifies, secret: string): Promise<LanguageHandler> {
  const dir = mkdtempSync(join(tmpdir(), 'python-handler-'));
  writeFileSync(join(dir, 'handler.py'), PYTHON_HANDLER);
  return started('python3', ['handler.py'], dir, { VERIFIES: verifies, WEBHOOK_SECRET: secret }, /^(\d+)$/m);
}

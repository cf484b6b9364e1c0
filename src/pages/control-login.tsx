// The sign-in page of the dashboard when the sandbox runs with --control-token: a browser cannot
// send a bearer header, so the token is exchanged once for an HttpOnly, SameSite=Strict cookie.
import { Layout } from './layout.js';

/** A form asking for the control token; `failed` shows why the last try was refused. */
export function ControlLoginPage(props: { failed?: boolean }) {
  return (
    <Layout title="paysandbox dashboard: sign in">
      <div class="card">
        <h1>Dashboard sign-in</h1>
        <p class="hint">This sandbox was started with --control-token. Enter that token to open the dashboard.</p>
        {props.failed ? (
          <div class="notice error" role="alert">
            That token is not the control token.
          </div>
        ) : null}
        <form method="post" action="/_sandbox/login">
          <label for="token">Control token</label>
          <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
          <button type="submit">Sign in</button>
        </form>
      </div>
    </Layout>
  );
}

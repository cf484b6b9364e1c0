// The stylesheet of every customer-facing page, served by the sandbox at /assets/pay.css so the
// pages load nothing from the internet. System fonts, one accent colour, fits a phone screen.

/** CSS of the hosted pages (authentication, checkout, results). */
export const PAGE_CSS = `
:root { --accent: #3b5bdb; --accent-dark: #2f4ac0; --ink: #1f2933; --muted: #616e7c; --line: #d9e2ec; --bg: #f4f6fa;
  --ok: #1e7b48; --bad: #c0392b; --warn: #a86000; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); line-height: 1.45; }
main { max-width: 440px; margin: 0 auto; padding: 24px 16px 48px; }
.sandbox-banner { background: #fff4d6; color: #6b4b00; font-size: 13px; text-align: center; padding: 6px 12px; border-bottom: 1px solid #f0dca0; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 24px; box-shadow: 0 1px 3px rgba(16,24,40,.06); }
.brand { display: flex; align-items: center; gap: 12px; margin-bottom: 16px; }
.brand img { max-height: 40px; max-width: 160px; object-fit: contain; }
.brand .name { font-weight: 600; font-size: 17px; }
h1 { font-size: 20px; margin: 0 0 4px; }
.amount { font-size: 28px; font-weight: 700; margin: 8px 0 16px; letter-spacing: -0.01em; }
dl.summary { display: grid; grid-template-columns: auto 1fr; gap: 6px 16px; margin: 0 0 20px; font-size: 14px; }
dl.summary dt { color: var(--muted); text-align: left; }
dl.summary dd { margin: 0; text-align: right; overflow-wrap: anywhere; }
label { display: block; font-weight: 600; font-size: 14px; margin: 14px 0 6px; }
input[type=text], input[type=email], input[type=tel], input[type=password], select { width: 100%; font-size: 16px; padding: 10px 12px; border: 1px solid #bcccdc; border-radius: 8px; background: #fff; color: var(--ink); }
input:focus, select:focus, button:focus, a:focus { outline: 3px solid #91a7ff; outline-offset: 2px; }
.row { display: flex; gap: 12px; } .row > * { flex: 1; }
button, .button { display: inline-block; width: 100%; margin-top: 16px; padding: 12px 16px; font-size: 16px; font-weight: 600; border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-align: center; text-decoration: none; }
button:hover, .button:hover { background: var(--accent-dark); }
button.secondary, .button.secondary { background: #fff; color: var(--ink); border-color: #bcccdc; }
button.danger { background: #fff; color: var(--bad); border-color: #f1b0a8; }
.actions { display: flex; flex-direction: column; gap: 0; }
.hint { font-size: 13px; color: var(--muted); margin-top: 8px; }
.notice { border-radius: 8px; padding: 10px 12px; font-size: 14px; margin-bottom: 14px; }
.notice.error { background: #fdecea; color: var(--bad); border: 1px solid #f5c2bb; }
.notice.ok { background: #e6f4ea; color: var(--ok); border: 1px solid #b7dfc3; }
.notice.info { background: #eef2ff; color: #2b3a8c; border: 1px solid #cdd6fb; }
.result { text-align: center; }
.result .icon { display: flex; justify-content: center; margin-bottom: 8px; }
.result.ok .icon { color: var(--ok); } .result.bad .icon { color: var(--bad); }
.result.ok h1 { color: var(--ok); } .result.bad h1 { color: var(--bad); }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px 12px; margin: 0 0 12px; }
legend { font-weight: 600; font-size: 14px; padding: 0 4px; }
.choice { display: flex; align-items: center; gap: 8px; font-weight: 500; margin: 8px 0 0; }
.tabs { display: flex; gap: 8px; margin-bottom: 12px; flex-wrap: wrap; }
.tabs a { flex: 1; text-align: center; padding: 8px; border: 1px solid var(--line); border-radius: 8px; color: var(--ink); text-decoration: none; font-weight: 600; font-size: 14px; background: #fff; }
.tabs a[aria-current=page] { border-color: var(--accent); color: var(--accent); background: #eef2ff; }
.qr { display: flex; justify-content: center; margin: 12px 0; } .qr svg { width: 220px; height: 220px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; background: #f0f4f8; padding: 1px 4px; border-radius: 4px; overflow-wrap: anywhere; }
footer { text-align: center; font-size: 12px; color: var(--muted); margin-top: 20px; }
@media (max-width: 480px) { main { padding: 12px 10px 32px; } .card { padding: 18px; } .amount { font-size: 24px; } }
/* Hosted checkout (src/pages/checkout-*.tsx) */
.checkout-head { border-bottom: 1px solid var(--line); margin: -4px 0 16px; }
.checkout-head .brand { margin-bottom: 12px; }
.monogram, .brand img.logo::after { display: inline-flex; align-items: center; justify-content: center; width: 40px; height: 40px; border-radius: 10px; background: var(--accent); color: #fff; font-weight: 700; font-size: 18px; }
/* A logo that fails to load: browsers draw ::after only on a broken image, so the initial covers it. */
.brand img.logo { position: relative; min-width: 40px; min-height: 40px; }
.brand img.logo::after { content: attr(data-initial); position: absolute; inset: 0; width: auto; height: auto; }
.due { margin: 0; font-size: 13px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.checkout-head .amount { margin: 2px 0 16px; }
.method-title { font-size: 17px; margin: 4px 0 0; }
.field-error { color: var(--bad); font-size: 13px; margin: 6px 0 0; }
input[aria-invalid=true], select[aria-invalid=true] { border-color: var(--bad); background: #fffafa; }
.pay-form button[type=submit] { margin-top: 20px; }
.test-data { margin-top: 18px; border: 1px dashed #e3c77a; background: #fffbeb; border-radius: 8px; padding: 8px 12px; font-size: 13px; color: #5c4500; }
.test-data summary { cursor: pointer; font-weight: 600; }
.test-data summary:focus { outline: 3px solid #91a7ff; outline-offset: 2px; }
.test-data ul { padding-left: 18px; margin: 8px 0; } .test-data li { margin: 4px 0; }
.mandate { line-height: 1.4; }
.bank-name { display: inline-block; margin: 0 0 10px; padding: 4px 10px; border-radius: 6px; background: #cc0066; color: #fff; font-weight: 700; font-size: 14px; }
.choice { padding: 8px 10px; border: 1px solid var(--line); border-radius: 8px; cursor: pointer; }
.choice input { width: 18px; height: 18px; margin: 0; flex: none; }
.choice .hint { display: block; margin: 2px 0 0; }
.notice a { color: inherit; font-weight: 600; }
`;

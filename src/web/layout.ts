import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f5f7;color:#1d2330}
.test-mode{background:#f59e0b;color:#1d1400;text-align:center;font-weight:700;letter-spacing:.08em;padding:6px;font-size:13px}
main{max-width:560px;margin:32px auto;padding:0 16px}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08),0 8px 24px rgba(0,0,0,.05);padding:24px;margin-bottom:16px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:0 0 12px}.muted{color:#667085}
.amount{font-size:32px;font-weight:700;margin:8px 0}
label{display:block;font-size:13px;color:#475467;margin:10px 0 4px}
input,select{width:100%;padding:10px;border:1px solid #d0d5dd;border-radius:8px;font:inherit}
.row{display:flex;gap:10px}.row>div{flex:1}
button{margin-top:16px;width:100%;padding:12px;border:0;border-radius:8px;background:#4f46e5;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#e4e7ec;color:#1d2330}button.danger{background:#d92d20}
.error{background:#fef3f2;border:1px solid #fda29b;color:#b42318;padding:10px 12px;border-radius:8px;margin-bottom:12px}
.success{background:#ecfdf3;border:1px solid #75e0a7;color:#067647;padding:10px 12px;border-radius:8px}
.test-cards{list-style:none;padding:0;margin:8px 0 0;font-size:13px}.test-cards li{margin:2px 0}
.test-cards a{color:#4f46e5;text-decoration:none;font-family:ui-monospace,monospace}
dl{display:grid;grid-template-columns:auto 1fr;gap:4px 16px;margin:0}dt{color:#667085}dd{margin:0;overflow-wrap:anywhere}
details{margin-top:12px}
`;

export function page(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sandbank</title>
<style>${raw(STYLE)}</style>
</head>
<body>
<div class="test-mode" role="status">TEST MODE · Sandbank sandbox · no real money moves</div>
<main>${body}</main>
</body>
</html>`;
}

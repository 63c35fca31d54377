const cardForm = document.getElementById('card-form');

// The card number as it is typed: grouped in fours (Amex 4-6-5) and its brand shown. The rules come
// from the page (data-brands: the server's own IIN prefixes and ranges, the ones its detection uses).
const rules = cardForm ? JSON.parse(cardForm.dataset.brands || '[]') : [];
const startsIn = (digits, [low, high]) => {
  if (digits.length < low.length) return false;
  const head = Number(digits.slice(0, low.length));
  return head >= Number(low) && head <= Number(high);
};
const brandOf = (digits) =>
  rules.find(
    (rule) => rule.prefixes.some((p) => digits.startsWith(p)) || rule.ranges.some((r) => startsIn(digits, r)),
  );

function grouped(digits, groups) {
  const parts = [];
  let at = 0;
  for (const size of groups) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) parts.push(digits.slice(at));
  return parts.join(' ');
}

function formatNumber() {
  const input = cardForm.elements.namedItem('number');
  const typed = input.value;
  const caret = input.selectionStart ?? typed.length;
  const digitsBefore = typed.slice(0, caret).replace(/\D/g, '').length;
  const digits = typed.replace(/\D/g, '').slice(0, 19);
  const rule = brandOf(digits);
  const shown = grouped(digits, rule ? rule.groups : [4, 4, 4, 4, 3]);
  const mark = document.querySelector('[data-testid="card-brand"]');
  mark.textContent = rule ? rule.label : '';
  mark.dataset.brand = rule ? rule.brand : '';
  if (shown === typed) return;
  input.value = shown;
  if (document.activeElement !== input) return;
  // The caret stays after the same digit it followed.
  let position = 0;
  for (let seen = 0; position < shown.length && seen < digitsBefore; position += 1) {
    if (/\d/.test(shown[position])) seen += 1;
  }
  input.setSelectionRange(position, position);
}

// What the payer typed (never the CVC) survives a decline: kept in this tab across the submit and
// put back by the page that shows the error, then forgotten.
const KEPT = ['number', 'exp_month', 'exp_year', 'name'];
// One key per checkout: /checkout/{id}, whichever of its pages (the form posts to /checkout/{id}/card).
const storeKey = `sandbank-checkout-card:${location.pathname.split('/').slice(0, 3).join('/')}`;
function takeKept() {
  try {
    const saved = sessionStorage.getItem(storeKey);
    sessionStorage.removeItem(storeKey);
    return saved ? JSON.parse(saved) : null;
  } catch {
    return null; // storage refused (a private mode): the form simply starts empty
  }
}

if (cardForm) {
  const kept = takeKept();
  if (kept && document.querySelector('[data-testid="card-error"]')) {
    for (const name of KEPT) {
      const input = cardForm.elements.namedItem(name);
      if (kept[name] && !input.value) input.value = kept[name];
    }
    const hint = document.querySelector('[data-testid="card-hint"]');
    if (hint && cardForm.elements.namedItem('number').value) hint.hidden = true;
  }
  formatNumber();
  cardForm.elements.namedItem('number').addEventListener('input', formatNumber);
  cardForm.addEventListener('submit', () => {
    const values = Object.fromEntries(KEPT.map((name) => [name, cardForm.elements.namedItem(name).value]));
    try {
      sessionStorage.setItem(storeKey, JSON.stringify(values));
    } catch {
      // not kept: the payer types it again
    }
  });
} else if (document.querySelector('[data-testid="status"]')) {
  takeKept(); // the checkout is closed: nothing to fill again
}

// The checkout's one-click test cards: a click fills the card form instead of following the link
// (the link itself pre-fills the form on the server when this script does not run). The expiry is
// the page's (data-exp-*: from the merchant's simulated clock), never the browser's own year.
document.querySelectorAll('[data-card]').forEach((a) => {
  a.addEventListener('click', (e) => {
    e.preventDefault();
    const f = cardForm.elements;
    f.namedItem('number').value = a.dataset.card;
    f.namedItem('cvc').value = a.dataset.cvc;
    f.namedItem('exp_month').value = a.dataset.expMonth;
    f.namedItem('exp_year').value = a.dataset.expYear;
    formatNumber();
  });
});

// The bank form's magic accounts: a click fills the routing and account numbers (the link itself
// pre-fills them on the server when this script does not run).
document.querySelectorAll('[data-account]').forEach((a) => {
  a.addEventListener('click', (e) => {
    e.preventDefault();
    document.getElementById('routing_number').value = a.dataset.routing;
    document.getElementById('account_number').value = a.dataset.account;
  });
});

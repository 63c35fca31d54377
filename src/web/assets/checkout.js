// The checkout's one-click test cards: a click fills the card form instead of following the link
// (the link itself pre-fills the form on the server when this script does not run). The expiry is
// the page's (data-exp-*: from the merchant's simulated clock), never the browser's own year.
document.querySelectorAll('[data-card]').forEach((a) => {
  a.addEventListener('click', (e) => {
    e.preventDefault();
    const f = document.getElementById('card-form');
    f.number.value = a.dataset.card;
    f.cvc.value = a.dataset.cvc;
    f.exp_month.value = a.dataset.expMonth;
    f.exp_year.value = a.dataset.expYear;
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

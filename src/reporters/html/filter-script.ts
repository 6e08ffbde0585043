/**
 * The page's one script: the finding filters (and unfolding the lists for print). Plain ES2017 for any browser a ticket is opened in; without it the page
 * still shows every finding (the selects are then inert).
 */
export const FILTER_SCRIPT = `(function () {
  'use strict';
  var keys = ['severity', 'rule', 'nodepool', 'namespace', 'change'];
  var selects = keys.map(function (k) { return document.getElementById('filter-' + k); });
  var articles = Array.prototype.slice.call(document.querySelectorAll('article.finding'));
  var count = document.getElementById('finding-count');
  function matches(article) {
    return selects.every(function (select, i) {
      var wanted = select ? select.value : '';
      if (!wanted) return true;
      var have = article.getAttribute('data-' + keys[i]) || '';
      return keys[i] === 'nodepool' ? have.split(' ').indexOf(wanted) >= 0 : have === wanted;
    });
  }
  function apply() {
    var shown = 0;
    articles.forEach(function (article) {
      if (matches(article)) { article.removeAttribute('hidden'); shown++; }
      else article.setAttribute('hidden', '');
    });
    if (count) count.textContent = shown + ' of ' + articles.length + ' findings';
  }
  selects.forEach(function (select) { if (select) select.addEventListener('change', apply); });
  apply();
  // A printed report shows what the folded lists hold.
  window.addEventListener('beforeprint', function () {
    Array.prototype.forEach.call(document.querySelectorAll('details'), function (d) { d.open = true; });
  });
})();
`;

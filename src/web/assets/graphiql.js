// Starts GraphiQL on /graphql (a served file: the page's CSP allows no inline script). Its editor's
// web workers are served files too, so `worker-src 'self'` holds; its options are the JSON in
// #root's data-options.
const WORKERS = {
  editorWorkerService: 'editor.worker.js',
  json: 'json.worker.js',
  graphql: 'graphql.worker.js',
};
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => `/graphql/assets/${WORKERS[label] ?? WORKERS.editorWorkerService}`,
};
const root = document.getElementById('root');
YogaGraphiQL.renderYogaGraphiQL(root, JSON.parse(root.dataset.options));

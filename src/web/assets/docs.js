// Swagger UI of /docs over the server's OpenAPI document (a served file: the page's CSP allows no inline script).
window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui', deepLinking: true });

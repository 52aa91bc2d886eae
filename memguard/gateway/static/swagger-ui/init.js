// memguard gateway: start Swagger UI on this gateway's OpenAPI document (no inline script: the
// page's Content-Security-Policy allows scripts from this origin only).
window.addEventListener("load", function () {
  var spec = document.getElementById("swagger-ui").getAttribute("data-openapi");
  window.ui = SwaggerUIBundle({
    url: spec,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false
  });
});

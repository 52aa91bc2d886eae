# memguard gateway: `memguard serve` in a container. Build from the repository root:
#   docker build -t memguard-gateway .
#   docker run -p 8700:8700 -p 127.0.0.1:9464:9464 \
#     -v $PWD/deploy/gateway.yaml:/etc/memguard/gateway.yaml:ro -v memguard-state:/var/lib/memguard \
#     memguard-gateway
# docs/deploy.md describes the stack around it (PostgreSQL, Qdrant, Redis, TLS, metrics).

# -- build: a wheel of this checkout -----------------------------------------------------------------
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY memguard ./memguard
COPY adapters ./adapters
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# -- run ---------------------------------------------------------------------------------------------
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1
# the gateway, the PostgreSQL driver, and the OpenTelemetry SDK (spans and metrics are exported
# when OTEL_* variables configure an exporter; without one nothing is sent)
COPY --from=build /wheels /wheels
RUN pip install "$(ls /wheels/memguard_provenance-*.whl)[gateway,postgres,otel]" \
    && rm -rf /wheels \
    && useradd --system --uid 10001 --home-dir /var/lib/memguard --create-home memguard \
    && mkdir -p /etc/memguard \
    && chown memguard /var/lib/memguard
# the scanner's rule tables, analysed once here into the installed package (memguard.scan.rulecache
# reads them there, verified), not at every start of a container
RUN python -m memguard.scan.cachetool "$(python -c 'import memguard.scan, os; print(os.path.dirname(memguard.scan.__file__))')"
USER memguard
WORKDIR /var/lib/memguard
# 8700: the API (agents); 9464: Prometheus /metrics, when `metrics.listen` binds it (scraper only)
EXPOSE 8700 9464
VOLUME ["/var/lib/memguard"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
    CMD python -c "import sys, urllib.request as u; sys.exit(u.urlopen('http://127.0.0.1:8700/healthz', timeout=2).status != 200)"
ENTRYPOINT ["memguard", "serve"]
CMD ["--config", "/etc/memguard/gateway.yaml"]

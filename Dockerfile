# One stateless image: the package (plugin, templates, static files) and the built, immutable
# database. Run as many replicas as the traffic needs behind a load balancer (see docs/deploy.md).
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY kb ./kb
COPY scraper ./scraper
RUN pip install --no-cache-dir .

# Build from the bundled snapshot; to ship a refreshed database instead, COPY data/kb.db kb.db.
COPY data/snapshot ./data/snapshot
RUN mtgkb build --quiet --snapshot data/snapshot --db kb.db && rm -rf data

EXPOSE 8001
CMD ["mtgkb", "serve", "--db", "kb.db", "--host", "0.0.0.0", "--port", "8001"]

# One stateless image: the package (plugin, templates, static files) and the built, immutable
# database. Run as many replicas as the traffic needs behind a load balancer (see docs/deploy.md).
FROM python:3.11-slim AS app

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY kb ./kb
COPY scraper ./scraper
RUN pip install --no-cache-dir .

# The database the image serves, made in a stage of its own so that only kb.db reaches the image
# (not the snapshot, nor a second copy of the file in another layer). By default it is built here
# from the bundled snapshot; `docker build --build-arg KB_DB=data/kb.db .` ships instead the
# data/kb.db that `make build`, `mtgkb import` or `mtgkb refresh` made (.dockerignore sends
# data/snapshot and data/kb.db, and nothing else of data/).
FROM app AS database
ARG KB_DB=
COPY data ./data
RUN if [ -z "$KB_DB" ]; then \
      mtgkb build --quiet --snapshot data/snapshot --db kb.db; \
    elif [ -f "$KB_DB" ]; then \
      mv "$KB_DB" kb.db; \
    else \
      echo "KB_DB=$KB_DB: no such file in the build context (only data/kb.db is sent)" >&2; exit 1; \
    fi

FROM app
COPY --from=database /app/kb.db kb.db

EXPOSE 8001
CMD ["mtgkb", "serve", "--db", "kb.db", "--host", "0.0.0.0", "--port", "8001"]

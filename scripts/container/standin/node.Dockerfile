# Stand-in for node:24-bookworm-slim: the Debian stand-in, Node 24's official binary (from the
# npm registry's `node` package) and npm, laid out as the official image lays them out, with its
# `node` user (uid 1000).
ARG BASE
FROM ${BASE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && groupadd --gid 1000 node \
  && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
  && node --version && npm --version
LABEL org.kgc.stand-in=node:24-bookworm-slim
CMD ["node"]

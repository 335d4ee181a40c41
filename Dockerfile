# The kgc image, built in stages so that the runtime image carries only what runs: the compiled
# CLI and API (dist/, bin/), the production packages, the migrations, package.json (the service
# version) and the native engine's loader and addon. No compilers, engine/target, sources,
# tests or benchmarks.
#
# The base images are build arguments so that a machine without a registry can build from local
# stand-ins (scripts/container/standin-images.sh); by default they are the official images.
ARG RUST_IMAGE=rust:1-bookworm
ARG NODE_BUILD_IMAGE=node:24-bookworm
ARG NODE_RUNTIME_IMAGE=node:24-bookworm-slim
# Where the production packages are installed (npm ci --omit=dev): the runtime's base by default.
ARG NODE_PACKAGES_IMAGE=node:24-bookworm-slim

FROM ${RUST_IMAGE} AS rust

# Build: the native engine (cargo) and the TypeScript (tsc), with every dev tool.
FROM ${NODE_BUILD_IMAGE} AS build
COPY --from=rust /usr/local/cargo /usr/local/cargo
COPY --from=rust /usr/local/rustup /usr/local/rustup
ENV CARGO_HOME=/usr/local/cargo RUSTUP_HOME=/usr/local/rustup PATH=/usr/local/cargo/bin:$PATH
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:engine && npm run build

# The production packages alone, installed on the runtime's own base image.
FROM ${NODE_PACKAGES_IMAGE} AS packages
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_RUNTIME_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=packages /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY --from=build /app/dist ./dist
COPY --from=build /app/engine/node/index.js /app/engine/node/package.json ./engine/node/
COPY --from=build /app/engine/node/*.node ./engine/node/
# KGC_STATE_DIR in docker-compose.yml: a new named volume takes this owner, so the node user can
# write model versions there.
RUN mkdir -p /var/lib/kgc && chown node:node /var/lib/kgc
USER node
EXPOSE 4000
CMD ["node", "bin/kgc.js", "serve"]

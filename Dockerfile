# The kgc image: Node 20 (as package.json's engines) plus the native engine built from engine/.
FROM rust:1-bookworm AS rust

FROM node:20-bookworm AS build
# The Rust toolchain from the official image; the engine builds with cargo alone.
COPY --from=rust /usr/local/cargo /usr/local/cargo
COPY --from=rust /usr/local/rustup /usr/local/rustup
ENV CARGO_HOME=/usr/local/cargo RUSTUP_HOME=/usr/local/rustup PATH=/usr/local/cargo/bin:$PATH
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:engine && npm run build && npm prune --omit=dev && rm -rf engine/target

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 4000
CMD ["node", "bin/kgc.js", "serve"]

# The kgc API image: Node 20 plus the native engine built from engine/ (Rust).
FROM rust:1-bookworm AS engine
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN if [ -f engine/node/package.json ]; then npm run build:engine; fi && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=engine /app /app
USER node
EXPOSE 4000
CMD ["node", "bin/kgc.js", "serve"]

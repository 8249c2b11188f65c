# syntax=docker/dockerfile:1
# Model Gateway image: one image, three entrypoints (api, worker, cli); the api is the default CMD.
ARG NODE_IMAGE=node:20-bookworm-slim

# --- deps: full dependency tree (incl. dev) for the build, cached on the lockfile alone ---
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# --- build: compile apps/api, apps/worker and apps/cli into dist/ ---
FROM deps AS build
COPY tsconfig*.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
COPY config ./config
COPY scripts ./scripts
RUN npm run build

# --- runtime: production dependencies + compiled output only ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# The local image editor draws captions and the watermark with system fonts (Latin and CJK).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core fonts-noto-cjk && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Cache is cleaned in the same layer so it never lands in the image.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
# Files stay root-owned (read-only to the app); the process runs as the image's unprivileged `node` user.
USER node
# 3000 = api, 3001 = worker health/metrics.
EXPOSE 3000 3001
CMD ["node", "dist/apps/api/apps/api/src/main.js"]

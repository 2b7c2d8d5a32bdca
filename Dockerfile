# Production image of Rampart: `docker build -t rampart .` (see docs/operations.md#deployment-files).
# Stage 1 installs every dependency and builds the service (tsc) and the admin console (vite);
# stage 2 holds the runtime dependencies only, the build output and the Lua scripts, and runs
# as the image's unprivileged `node` user. Checked without a daemon by test/deploy/dockerfile.spec.ts.

FROM node:20.20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY console ./console
COPY scripts ./scripts
COPY lua ./lua
RUN npm run build

FROM node:20.20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    SEARCH_SQLITE_PATH=/app/data/search.sqlite
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY lua ./lua
COPY --from=build /app/dist ./dist
# The SQLite search index is written on first start: the only directory the service writes to.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# Liveness only (the process answers); readiness (/health/ready) is for load balancers and Kubernetes.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]

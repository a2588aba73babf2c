# syntax=docker/dockerfile:1
# One image for both apps: the API and the sync worker differ only in their command, see
# infra/compose.yaml. Node 24 runs the TypeScript sources directly (type stripping), as ./dev start does.
FROM node:24-bookworm-slim AS build
RUN corepack enable
WORKDIR /app
# Dependencies first, from the lockfile alone, so source edits do not refetch them (https://pnpm.io/cli/fetch).
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --offline --frozen-lockfile \
 && pnpm --filter @conduit/console run build

FROM node:24-bookworm-slim AS app
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 8080
# The API by default; the worker runs the same image with its own command (compose.yaml).
CMD ["node", "apps/api/src/main.ts"]

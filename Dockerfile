# template-sync: one image, two processes.
#
# The entrypoint is the template-sync command. Container arguments are its
# subcommand and flags, so `docker run IMAGE webhook --cert-dir /tls ...` is
# `template-sync webhook --cert-dir /tls ...`. The exact start command is
#
#   /nodejs/bin/node --enable-source-maps --title=template-sync /app/dist/main.js <subcommand> [flags]
#
# which, outside the image and after `npm run build`, is
#
#   node dist/main.js <subcommand> [flags]        (from the repository root)
#
# Build: docker build -t template-sync:0.1.0 .

ARG NODE_MAJOR=24

# Compile TypeScript to dist/ with the full (dev) dependency set.
FROM node:${NODE_MAJOR}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the pinned `node` dev dependency would fetch a second Node
# binary for npm scripts; this image's own Node 24 runs the compiler instead.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json

# Production dependencies only, resolved from the same lock file.
FROM node:${NODE_MAJOR}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Runtime: distroless Node 24 on Debian 12, the same glibc family as the build
# stages. No shell, no package manager, nothing but Node and CA certificates;
# the :nonroot variant runs as uid/gid 65532.
FROM gcr.io/distroless/nodejs24-debian12:nonroot
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="template-sync" \
      org.opencontainers.image.description="Drift protection for Template Operator v2 Templates and TemplateInstances: reconciler and validating admission webhook" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /app
ENV NODE_ENV=production
# package.json carries "type": "module", which dist/*.js needs.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER 65532:65532
# 9443 webhook (HTTPS), 8081 webhook health and metrics, 8082 reconciler health and metrics.
EXPOSE 9443 8081 8082
# JSON form: exec'd directly, no shell (there is none). distroless keeps node at
# /nodejs/bin/node, outside PATH, hence the full path. --title makes the
# process show up as template-sync.
ENTRYPOINT ["/nodejs/bin/node", "--enable-source-maps", "--title=template-sync", "/app/dist/main.js"]
CMD ["--help"]

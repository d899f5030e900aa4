# The edgeadmit image: the CLI that the sync and audit CronJobs run
# (infra/k8s), bundled into one file with all its dependencies. Build it from
# the sources of the version you deploy and push it where the cluster pulls:
#   docker build -t registry.example.com/edgeadmit:0.1.0 . && docker push registry.example.com/edgeadmit:0.1.0
# A cluster that cannot pull an image uses the ConfigMap path instead
# (infra/k8s/bundle, docs/operations.md).
# Node is the version package.json pins as the devDependency `node` (the one
# the tests run on; infra/k8s/k8s.test.ts holds the two together). Tags, not
# digests: the machine this was written on cannot reach Docker Hub to read the
# official digests. Before a release, pin each base as
# `node:24.21.0@sha256:…` with the digest `docker buildx imagetools inspect
# node:24.21.0` prints.
FROM node:24.21.0 AS build
WORKDIR /src
# Install scripts fetch runtimes the bundle does not need (workerd's); esbuild's binary comes in its own package.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN node scripts/tsrun.mjs infra/bundle/build.ts --out /out/edgeadmit.mjs

FROM node:24.21.0-slim
COPY --from=build /out/edgeadmit.mjs /opt/edgeadmit/edgeadmit.mjs
# The image's `node` user (uid 1000), as the CronJobs' securityContext expects.
USER node
ENTRYPOINT ["node", "/opt/edgeadmit/edgeadmit.mjs"]

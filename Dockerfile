# The edgeadmit image: the CLI that the sync and audit CronJobs run
# (infra/k8s), bundled into one file with all its dependencies. Build it from
# the sources of the version you deploy and push it where the cluster pulls:
#   docker build --build-arg EDGEADMIT_COMMIT=$(git rev-parse --short=12 HEAD) -t registry.example.com/edgeadmit:0.2.0 . && docker push registry.example.com/edgeadmit:0.2.0
# A cluster that cannot pull an image uses the ConfigMap path instead
# (infra/k8s/bundle, docs/operations.md).
# Node is the version package.json pins as the devDependency `node` (the one
# the tests run on; infra/k8s/k8s.test.ts holds the two together), each base
# pinned by the digest of its multi-platform index as Docker's official-images
# record publishes it (github.com/docker-library/repo-info,
# repos/node/remote/24.21.0.md and 24.21.0-slim.md), so a rebuilt tag changes
# nothing here; `docker buildx imagetools inspect node:<tag>` prints it too.
# A new Node version means new digests (test/node/support/bundled.ts).
FROM node:24.21.0@sha256:22553920add6fb1fd909104346924cd30b4b3ac76ca2980f3b8dba8ede3cf945 AS build
WORKDIR /src
# Install scripts fetch runtimes the bundle does not need (workerd's); esbuild's binary comes in its own package.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# The commit the image is built from (.git is not copied in), which the CLI names itself by:
# --build-arg EDGEADMIT_COMMIT=$(git rev-parse --short=12 HEAD). An ARG is in RUN's environment.
ARG EDGEADMIT_COMMIT=""
RUN node scripts/tsrun.mjs infra/bundle/build.ts --out /out/edgeadmit.mjs

FROM node:24.21.0-slim@sha256:0e0ff40c39bc087845bfb27465a0df4ea419520094bc35842ff83dd8cbe6f9b6
COPY --from=build /out/edgeadmit.mjs /opt/edgeadmit/edgeadmit.mjs
# The image's `node` user (uid 1000), as the CronJobs' securityContext expects.
USER node
ENTRYPOINT ["node", "/opt/edgeadmit/edgeadmit.mjs"]

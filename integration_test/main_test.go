package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Environment variables that choose the server.
const (
	envMongoImage = "OIDKIT_TEST_MONGO_IMAGE" // e.g. mongo:8.0: real MongoDB via the mongodb module
	envURI        = "OIDKIT_TEST_URI"         // an existing server
	envEmbedded   = "OIDKIT_TEST_EMBEDDED"    // 1: the in-process server even with Docker up
)

// suite is what TestMain prepares once for every test.
var suite struct {
	bin       string // the built oidkit binary
	moduleDir string // the module root
	mode      string // modeContainer, modeMongo, modeURI or modeEmbedded
	why       string // why the mode was chosen, for skip messages
	image     string // the scratch image built for modeContainer
	mongoImg  string // the image for modeMongo
	uri       string // the server for modeURI
	stubs     map[string]bool
}

const (
	modeContainer = "container" // oidkit server in a scratch image
	modeMongo     = "mongo"     // real MongoDB via the testcontainers mongodb module
	modeURI       = "uri"       // an existing server
	modeEmbedded  = "embedded"  // in-process embedded server (no Docker engine)
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) (code int) {
	// The Ryuk reaper image cannot be pulled on machines without a registry;
	// the suite removes its own containers (t.Cleanup) and image (below). The
	// setting must be in place before the first testcontainers call, which
	// reads the configuration once.
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}

	start := time.Now()
	tmp, err := os.MkdirTemp("", "oidkit-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	suite.moduleDir, err = moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	suite.bin, err = buildBinary(suite.moduleDir, tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	logf("built %s in %v", suite.bin, time.Since(start).Round(time.Millisecond))
	suite.stubs = findStubs(suite.bin)

	switch {
	case os.Getenv(envURI) != "":
		suite.mode, suite.uri = modeURI, os.Getenv(envURI)
		suite.why = envURI + " is set: the suite uses that server and cannot stop it"
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := ping(ctx, suite.uri)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "integration: %s: the server does not answer: %v\n", envURI, err)
			return 1
		}
	case os.Getenv(envEmbedded) == "1":
		suite.mode = modeEmbedded
		suite.why = envEmbedded + "=1: using the in-process embedded server"
	case os.Getenv(envMongoImage) != "":
		if err := dockerReachable(); err != nil {
			fmt.Fprintf(os.Stderr, "integration: %s is set but no Docker engine is reachable: %v\n", envMongoImage, err)
			return 1
		}
		suite.mode, suite.mongoImg = modeMongo, os.Getenv(envMongoImage)
		suite.why = "real MongoDB " + suite.mongoImg
	default:
		if err := dockerReachable(); err != nil {
			suite.mode = modeEmbedded
			suite.why = fmt.Sprintf("no Docker engine reachable (%v): using the in-process embedded server", err)
			break
		}
		suite.mode = modeContainer
		bstart := time.Now()
		img, cleanup, err := buildImage(tmp, suite.bin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "integration: building the server image:", err)
			return 1
		}
		defer func() {
			if err := cleanup(); err != nil {
				fmt.Fprintln(os.Stderr, "integration: removing the server image:", err)
				if code == 0 {
					code = 1
				}
			}
		}()
		suite.image = img
		suite.why = "oidkit server in a scratch container"
		logf("built image %s in %v", img, time.Since(bstart).Round(time.Millisecond))
	}
	logf("server: %s (%s)", suite.mode, suite.why)
	code = m.Run()
	logf("suite wall time %v", time.Since(start).Round(time.Millisecond))
	return code
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "integration: "+format+"\n", args...)
}

// moduleRoot finds the directory holding go.mod, starting from the test's
// working directory (the package directory under go test).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

// buildBinary builds a static oidkit binary: it must run in a scratch image.
func buildBinary(moduleDir, tmp string) (string, error) {
	bin := filepath.Join(tmp, "oidkit")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, ".")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// findStubs lists the commands that are still placeholders (their help says
// "(being built)"), so that their scenarios skip with that reason instead of
// failing on a flag the placeholder does not have.
func findStubs(bin string) map[string]bool {
	stubs := map[string]bool{}
	for _, c := range []string{"seed", "fixtures", "load", "verify db", "verify ids", "server"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, _ := exec.CommandContext(ctx, bin, append(strings.Fields(c), "--help")...).CombinedOutput()
		cancel()
		if strings.Contains(string(out), "(being built)") {
			stubs[c] = true
			logf("%q is not built yet: its scenarios skip", c)
		}
	}
	return stubs
}

// dockerReachable reports whether a Docker engine answers.
func dockerReachable() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.Ping(ctx, client.PingOptions{})
	return err
}

// serverDockerfile runs the embedded server of the binary itself. WORKDIR
// creates /data and /tmp, which a scratch image lacks (SQLite may spill
// temporary files); /data is a volume so it outlives stop/start and kill/start
// and goes away with the container.
const serverDockerfile = `FROM scratch
COPY oidkit /oidkit
WORKDIR /tmp
WORKDIR /data
ENV TMPDIR=/tmp
VOLUME ["/data"]
EXPOSE 27017
ENTRYPOINT ["/oidkit", "server", "--listen", "0.0.0.0:27017", "--data-dir", "/data"]
`

// buildImage builds the scratch server image once, with testcontainers'
// FromDockerfile, and returns its tag and a function that removes it.
func buildImage(tmp, bin string) (string, func() error, error) {
	ctxDir := filepath.Join(tmp, "image")
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte(serverDockerfile), 0o644); err != nil {
		return "", nil, err
	}
	if err := copyFile(bin, filepath.Join(ctxDir, "oidkit"), 0o755); err != nil {
		return "", nil, err
	}
	tag := fmt.Sprintf("it-%d-%d", os.Getpid(), time.Now().UnixNano())
	req := &testcontainers.ContainerRequest{
		FromDockerfile: testcontainers.FromDockerfile{
			Context:        ctxDir,
			Dockerfile:     "Dockerfile",
			Repo:           "oidkit-server",
			Tag:            tag,
			BuildLogWriter: io.Discard,
			KeepImage:      true, // removed once, below, not by each container
		},
	}
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	img, err := provider.BuildImage(ctx, req)
	if err != nil {
		provider.Close()
		return "", nil, err
	}
	cleanup := func() error {
		defer provider.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := provider.Client().ImageRemove(ctx, img, client.ImageRemoveOptions{Force: true, PruneChildren: true})
		return err
	}
	return img, cleanup, nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sanitize turns a test name into something usable as a database name.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 40 {
		s = s[len(s)-40:]
	}
	return s
}

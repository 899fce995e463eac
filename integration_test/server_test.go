package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/mongodb"
	"github.com/testcontainers/testcontainers-go/wait"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
)

// server is one test's database server. Depending on the suite's mode it is a
// container of its own (scratch image or real MongoDB), a shared existing
// server, or an in-process embedded server.
type server struct {
	t    *testing.T
	mode string
	ctr  testcontainers.Container // container modes
	// embedded mode
	emb     *embedded.Server
	dataDir string
	addr    string
	// the database reserved for this test: tests never share one, so they can
	// run on a shared server.
	DB string
}

// newServer gives the test a server; containers are terminated in t.Cleanup.
func newServer(t *testing.T) *server {
	t.Helper()
	s := &server{t: t, mode: suite.mode, DB: "it_" + sanitize(t.Name()) + "_" + randHex(3)}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	switch s.mode {
	case modeContainer:
		ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
			ContainerRequest: testcontainers.ContainerRequest{
				Image:        suite.image,
				ExposedPorts: []string{"27017/tcp"},
				// The image has no shell: wait by pinging through the driver
				// on the mapped port (re-read on every attempt).
				WaitingFor: pingStrategy{timeout: 60 * time.Second},
			},
			Started: true,
		})
		s.ctr = ctr
		t.Cleanup(s.terminate)
		if err != nil {
			logs := containerLogs(ctr)
			if strings.Contains(logs, "not built yet") {
				t.Skipf("skipped: `oidkit server` is not built yet: %s", strings.TrimSpace(logs))
			}
			t.Fatalf("starting the oidkit server container: %v\ncontainer output:\n%s", err, logs)
		}
	case modeMongo:
		// The module's own wait (a log line, then a port check that dials
		// testcontainers' host guess) is replaced by the driver ping, which
		// also works where that guess does not reach published ports.
		ctr, err := mongodb.Run(ctx, suite.mongoImg,
			testcontainers.WithWaitStrategy(pingStrategy{timeout: 2 * time.Minute}))
		if ctr != nil {
			s.ctr = ctr
		}
		t.Cleanup(s.terminate)
		if err != nil {
			t.Fatalf("starting %s: %v", suite.mongoImg, err)
		}
	case modeURI:
		t.Cleanup(func() {
			c := s.Client()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = c.Database(s.DB).Drop(ctx)
		})
	case modeEmbedded:
		s.dataDir = t.TempDir()
		emb, err := embedded.Start(embedded.Options{DataDir: s.dataDir})
		if err != nil {
			t.Fatalf("embedded server: %v", err)
		}
		s.emb, s.addr = emb, emb.Addr()
		t.Cleanup(func() {
			if s.emb != nil {
				_ = s.emb.Close()
			}
		})
	}
	return s
}

// containerLogs is the container's output, for failure messages.
func containerLogs(ctr testcontainers.Container) string {
	if ctr == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return "(no logs: " + err.Error() + ")"
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 64<<10))
	return string(b)
}

func (s *server) terminate() {
	if s.ctr == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A paused container cannot be stopped; unpause first (an error means it
	// was not paused).
	if cli, err := testcontainers.NewDockerClientWithOpts(ctx); err == nil {
		_, _ = cli.ContainerUnpause(ctx, s.ctr.GetContainerID(), client.ContainerUnpauseOptions{})
		cli.Close()
	}
	if err := testcontainers.TerminateContainer(s.ctr, testcontainers.StopTimeout(5*time.Second)); err != nil {
		s.t.Errorf("terminating container: %v", err)
	}
	s.ctr = nil
}

// URI is the server's current connection string. For containers the mapped
// port is read each time: it may change when the container restarts.
func (s *server) URI() string {
	s.t.Helper()
	switch s.mode {
	case modeURI:
		return suite.uri
	case modeEmbedded:
		return "mongodb://" + s.addr + "/"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	uri, err := containerURI(ctx, s.ctr)
	if err != nil {
		s.t.Fatalf("container address: %v", err)
	}
	return uri
}

// portTarget is what both a container and a wait-strategy target offer.
type portTarget interface {
	Host(context.Context) (string, error)
	MappedPort(context.Context, string) (network.Port, error)
}

func containerURI(ctx context.Context, target portTarget) (string, error) {
	mp, err := target.MappedPort(ctx, "27017/tcp")
	if err != nil {
		return "", err
	}
	host, err := publishedHost(ctx, target, mp.Port())
	if err != nil {
		return "", err
	}
	return "mongodb://" + net.JoinHostPort(host, mp.Port()) + "/", nil
}

var (
	hostMu     sync.Mutex
	hostChosen string
)

// publishedHost is where the container's published ports are reached.
// testcontainers guesses the daemon's address; when the tests themselves run
// inside a container whose network namespace also holds the Docker engine (a
// local socket, a local docker0 bridge), its guess (the default gateway) does
// not reach the published ports, and the loopback address does. The first
// address that accepts a TCP connection wins and is kept.
// TESTCONTAINERS_HOST_OVERRIDE still takes precedence (testcontainers
// returns it from Host).
func publishedHost(ctx context.Context, target portTarget, port string) (string, error) {
	hostMu.Lock()
	defer hostMu.Unlock()
	if hostChosen != "" {
		return hostChosen, nil
	}
	guess, err := target.Host(ctx)
	if err != nil {
		return "", err
	}
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") != "" {
		return guess, nil
	}
	for _, h := range []string{guess, "127.0.0.1"} {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(h, port), time.Second)
		if err == nil {
			conn.Close()
			hostChosen = h
			return h, nil
		}
	}
	// Nothing listens yet; the caller retries.
	return guess, nil
}

// Client connects a driver client to the server's current address; it is
// disconnected in t.Cleanup (and must be before an embedded server stops).
func (s *server) Client() *mongo.Client {
	s.t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).
		SetServerSelectionTimeout(20 * time.Second).SetTimeout(2 * time.Minute))
	if err != nil {
		s.t.Fatalf("driver connect: %v", err)
	}
	s.t.Cleanup(func() { disconnect(c) })
	return c
}

func disconnect(c *mongo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.Disconnect(ctx)
}

// Coll is a collection of the test's database.
func (s *server) Coll(c *mongo.Client, name string) *mongo.Collection {
	return c.Database(s.DB).Collection(name)
}

// requireFaults skips the test, with the reason, when the server cannot be
// made to fail that way: a server given by URI is not the suite's to stop, and
// the in-process server can only be stopped and started again.
func (s *server) requireFaults(t *testing.T, what string) {
	t.Helper()
	switch s.mode {
	case modeURI:
		t.Skipf("skipped: %s needs a server the suite controls; %s", what, suite.why)
	case modeEmbedded:
		if what != "stop" {
			t.Skipf("skipped: %s needs a container; %s", what, suite.why)
		}
	}
}

// Stop stops the server cleanly (SIGTERM for a container).
func (s *server) Stop() {
	s.t.Helper()
	switch s.mode {
	case modeEmbedded:
		_ = s.emb.Close()
		s.emb = nil
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := 20 * time.Second
	if err := s.ctr.Stop(ctx, &d); err != nil {
		s.t.Fatalf("stopping the container: %v", err)
	}
}

// Start starts a stopped or killed server again and waits until it answers.
func (s *server) Start() {
	s.t.Helper()
	switch s.mode {
	case modeEmbedded:
		var err error
		for i := 0; i < 50; i++ { // the port may take a moment to be free again
			s.emb, err = embedded.Start(embedded.Options{DataDir: s.dataDir, Listen: s.addr})
			if err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		s.t.Fatalf("restarting the embedded server on %s: %v", s.addr, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Start runs the request's wait strategy again (the driver ping on the
	// newly mapped port for the scratch image).
	if err := s.ctr.Start(ctx); err != nil {
		s.t.Fatalf("starting the container again: %v", err)
	}
	if err := pingUntil(ctx, s.URI()); err != nil {
		s.t.Fatalf("server did not answer after restart: %v", err)
	}
}

// Kill sends SIGKILL to the server: no chance to flush or close anything.
func (s *server) Kill() {
	s.t.Helper()
	s.docker(func(ctx context.Context, cli *testcontainers.DockerClient, id string) error {
		_, err := cli.ContainerKill(ctx, id, client.ContainerKillOptions{Signal: "KILL"})
		return err
	})
}

// Pause freezes every process of the container: connections stay open and
// nothing answers.
func (s *server) Pause() {
	s.t.Helper()
	s.docker(func(ctx context.Context, cli *testcontainers.DockerClient, id string) error {
		_, err := cli.ContainerPause(ctx, id, client.ContainerPauseOptions{})
		return err
	})
}

// Unpause resumes a paused container.
func (s *server) Unpause() {
	s.t.Helper()
	s.docker(func(ctx context.Context, cli *testcontainers.DockerClient, id string) error {
		_, err := cli.ContainerUnpause(ctx, id, client.ContainerUnpauseOptions{})
		return err
	})
}

func (s *server) docker(f func(context.Context, *testcontainers.DockerClient, string) error) {
	s.t.Helper()
	if s.ctr == nil {
		s.t.Fatalf("no container to act on in mode %s", s.mode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		s.t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	if err := f(ctx, cli, s.ctr.GetContainerID()); err != nil {
		s.t.Fatalf("docker: %v", err)
	}
}

// pingStrategy waits until the server answers a driver ping on the mapped
// port. It needs nothing inside the container (the scratch image has no shell
// for testcontainers' internal port check), and unlike a log line it cannot
// be satisfied by the output of an earlier run after a restart.
type pingStrategy struct{ timeout time.Duration }

func (p pingStrategy) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var last error
	for {
		if st, err := target.State(ctx); err == nil && !st.Running {
			return fmt.Errorf("container is %s (exit code %d)", st.Status, st.ExitCode)
		}
		uri, err := containerURI(ctx, target)
		if err == nil {
			if err = ping(ctx, uri); err == nil {
				return nil
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer to ping within %v: %v", p.timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (p pingStrategy) String() string { return "driver ping on 27017/tcp" }

func ping(ctx context.Context, uri string) error {
	c, err := mongo.Connect(options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(2 * time.Second).SetConnectTimeout(2 * time.Second))
	if err != nil {
		return err
	}
	defer disconnect(c)
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return c.Database("admin").RunCommand(pctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

func pingUntil(ctx context.Context, uri string) error {
	var err error
	for {
		if err = ping(ctx, uri); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

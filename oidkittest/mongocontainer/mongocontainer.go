// Package mongocontainer gives oidkittest its OIDKIT_TEST_MONGO_IMAGE
// backend: one MongoDB container of that image for the test binary,
// started through Testcontainers. Import it for its effect in one test
// file of a package whose tests should be able to run on a container:
//
//	import _ "github.com/oidkit/oidkit/oidkittest/mongocontainer"
//
// It is a package of its own so that a module that uses oidkittest
// without containers does not depend on Testcontainers and the Docker
// client.
package mongocontainer

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/mongodb"
	"github.com/testcontainers/testcontainers-go/wait"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/oidkittest"
)

func init() { oidkittest.RegisterContainer(Start) }

// Start runs one MongoDB container of image through Testcontainers'
// mongodb module and returns its connection string and how to terminate
// it (Testcontainers' reaper terminates it too where it runs). The
// container is ready when it answers a driver ping on its published port
// (any MongoDB does; a log line is image-specific).
func Start(ctx context.Context, image string) (string, func() error, error) {
	c, err := mongodb.Run(ctx, image, testcontainers.WithWaitStrategy(pingWait{}))
	if err != nil {
		if c != nil {
			_ = testcontainers.TerminateContainer(c)
		}
		return "", nil, err
	}
	uri, err := reachableURI(ctx, c)
	if err != nil {
		_ = testcontainers.TerminateContainer(c)
		return "", nil, err
	}
	return uri, func() error { return testcontainers.TerminateContainer(c) }, nil
}

// pingWait waits until the container answers a driver ping on its
// published port.
type pingWait struct{}

func (pingWait) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var last error
	for {
		if st, err := target.State(ctx); err == nil && !st.Running {
			return fmt.Errorf("container is %s (exit code %d)", st.Status, st.ExitCode)
		}
		if _, err := reachableURI(ctx, target); err == nil {
			return nil
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer to a ping: %v", last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// portTarget is what both a container and a wait strategy's target offer.
type portTarget interface {
	Host(context.Context) (string, error)
	MappedPort(context.Context, string) (network.Port, error)
}

// reachableURI is the connection string of the container's port 27017 at
// the first address that answers a ping: Testcontainers' guess of the
// engine's host, then the loopback address (where the tests run in the
// engine's own network namespace, the guess does not reach published
// ports).
func reachableURI(ctx context.Context, target portTarget) (string, error) {
	mp, err := target.MappedPort(ctx, "27017/tcp")
	if err != nil {
		return "", err
	}
	guess, err := target.Host(ctx)
	if err != nil {
		return "", err
	}
	hosts := []string{guess}
	if guess != "127.0.0.1" && os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" {
		hosts = append(hosts, "127.0.0.1")
	}
	for _, h := range hosts {
		uri := "mongodb://" + net.JoinHostPort(h, mp.Port()) + "/"
		if err = ping(ctx, uri); err == nil {
			return uri, nil
		}
	}
	return "", err
}

func ping(ctx context.Context, uri string) error {
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(2 * time.Second).SetConnectTimeout(2 * time.Second))
	if err != nil {
		return err
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return c.Database("admin").RunCommand(pctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

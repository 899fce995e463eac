// Package ready holds what every client of oidkit does once connected:
// Ping, which waits until the server is known.
package ready

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// PingTry bounds one server selection of Ping.
const PingTry = 500 * time.Millisecond

// Ping pings the server of client until it answers (nil, or the server's
// error) or ctx ends (the last try's error is returned then). Each try,
// its server selection included, has at most PingTry. One selection that
// waits for a server to become known can miss
// the description that makes it so when that description arrives while
// the selection subscribes to changes (it does with a server on the same
// machine, which answers the first hello within a millisecond); it then
// waits for the next heartbeat, which a server that streams them (MongoDB
// 4.4 and later, the embedded server) sends after heartbeatFrequencyMS, 10
// s by default: the whole timeout of a command. The next selection starts
// from the current description and finds the server at once.
func Ping(ctx context.Context, client *mongo.Client) error {
	for {
		try, cancel := context.WithTimeout(ctx, PingTry)
		err := client.Database("admin").RunCommand(try, bson.D{{Key: "ping", Value: 1}}).Err()
		again := spent(ctx, try, err)
		cancel()
		if !again {
			return err
		}
	}
}

// spent reports whether a try that returned err ran out of its own time
// while the caller's, ctx, goes on: its context ended, or the driver
// judged what was left of it too short to send the command ("operation
// not sent to server", wrapping context.DeadlineExceeded).
func spent(ctx, try context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	return try.Err() != nil || errors.Is(err, context.DeadlineExceeded)
}

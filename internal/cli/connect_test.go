package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/target"
)

// secretPassword is the password of the test URIs; leakMark is in every
// spelling of it (as written, percent-encoded or decoded).
const (
	secretPassword = "S3cr3tPa55"
	leakMark       = "tPa55"
)

// No error of connecting shows the password, whatever is wrong with the
// connection string and whichever command reads it.
func TestConnectURIErrorsHidePassword(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := closed.Addr().String()
	_ = closed.Close()
	uris := []string{
		"mongodb://admin:" + secretPassword + "@localhost:99999/",
		"mongodb://admin:" + secretPassword + "@localhost:port/",
		"mongodb://admin:" + secretPassword + "@::1:27017/",
		"mongodb://admin:" + secretPassword + "@[::1/",
		"mongodb://admin:" + secretPassword + "@/",
		"mongodb://admin:" + secretPassword + "@host/?authMechanism=NOPE",
		"mongodb://admin:" + secretPassword + "@host/?connectTimeoutMS=x",
		"mongodb://admin:" + secretPassword + "@h%zz/",
		"mongodb://admin:S3cr%33tPa55@localhost:99999/",
		"mongodb://admin:" + secretPassword + "@" + unreachable + "/",
		"mongdb://admin:" + secretPassword + "@localhost/",
	}
	fixture := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(fixture, []byte(`{"_id":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	commands := []struct{ words, args []string }{
		{[]string{"seed", "-n", "1"}, nil},
		{[]string{"load"}, []string{fixture}},
		{[]string{"verify", "db", "--seed", "1"}, nil},
	}
	for _, uri := range uris {
		for _, cmd := range commands {
			args := append(append([]string{}, cmd.words...), "--timeout", "300ms", "--uri", uri)
			out, errOut, code := runApp(t, t.Context(), "", append(args, cmd.args...)...)
			if code == ExitOK || strings.Contains(out+errOut, leakMark) || !strings.Contains(errOut, "****") {
				t.Errorf("%v --uri %s: exit %d, output %q %q; want a failure with the password masked", cmd, uri, code, out, errOut)
			}
		}
	}
	// The environment variable goes through the same path.
	t.Setenv("OIDKIT_URI", uris[0])
	out, errOut, code := runApp(t, t.Context(), "", "seed", "-n", "1")
	if code == ExitOK || strings.Contains(out+errOut, leakMark) || !strings.Contains(errOut, "****") {
		t.Errorf("seed with OIDKIT_URI=%s: exit %d, output %q %q", uris[0], code, out, errOut)
	}
}

func TestMaskURI(t *testing.T) {
	cases := map[string]string{
		"mongodb://a:b%40c@h:1/":            "mongodb://a:****@h:1/",
		"mongodb://a:pw@h:99999/":           "mongodb://a:****@h:99999/",
		"mongodb://a@h/":                    "mongodb://a@h/",
		"mongodb://h/":                      "mongodb://h/",
		"mongodb+srv://u:p@@x.example.com/": "mongodb+srv://u:****@x.example.com/",
	}
	for in, want := range cases {
		if got := target.MaskURI(in); got != want {
			t.Errorf("MaskURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// A read-only command over a data directory that does not exist is bad input,
// and creates nothing.
func TestConnectMissingDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	_, errOut, code := runApp(t, t.Context(), "", "verify", "db", "--seed", "1", "--data-dir", dir)
	if code != ExitUsage || !strings.Contains(errOut, dir) {
		t.Errorf("verify db --data-dir %s: exit %d, stderr %q; want exit 2 naming the directory", dir, code, errOut)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("verify db created %s (stat: %v)", dir, err)
	}
}

// appEnv marks a re-executed test binary that runs the app.
const appEnv = "OIDKIT_TEST_APP"

// TestLockAppProcess is the body of a child process: it runs the app with the
// arguments after "--" (so that they are in its command line, as in the
// real binary's) and exits with its code.
func TestLockAppProcess(t *testing.T) {
	if os.Getenv(appEnv) == "" {
		t.Skip("runs only as a child of TestLockTwoProcesses")
	}
	os.Exit(NewApp(os.Stdin, os.Stdout, os.Stderr).Run(append([]string{"oidkit"}, flag.Args()...)))
}

func appProcess(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestLockAppProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), appEnv+"=1")
	return cmd
}

// A seed over the data directory of a running `oidkit server` (another
// process) writes through that server and says so; a second server over it
// is refused naming the first, and the server's data is intact.
func TestLockTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	if out, errOut, code := runApp(t, t.Context(), "", "seed", "--data-dir", dir, "--seed", "5", "-n", "50", "--quiet"); code != ExitOK {
		t.Fatalf("seed: %d %s %s", code, out, errOut)
	}
	server := appProcess("server", "--listen", "127.0.0.1:0", "--data-dir", dir)
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = server.Process.Signal(syscall.SIGTERM)
		_ = server.Wait()
	}()
	uri, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("server printed no URI: %v", err)
	}
	uri = strings.TrimSpace(uri)

	second := appProcess("seed", "--data-dir", dir, "--seed", "6", "-n", "10", "--collection", "other")
	out, err := second.CombinedOutput()
	msg := string(out)
	if second.ProcessState.ExitCode() != ExitOK {
		t.Fatalf("second seed: exit %d (%v), output %q; want exit 0", second.ProcessState.ExitCode(), err, msg)
	}
	for _, want := range []string{fmt.Sprintf("(process %d); using it at %s", server.Process.Pid, uri), "inserted 10", "into " + uri} {
		if !strings.Contains(msg, want) {
			t.Errorf("second seed's message %q does not contain %q", msg, want)
		}
	}
	// A second server on the same directory is refused the same way.
	if _, errOut, code := runApp(t, t.Context(), "", "server", "--listen", "127.0.0.1:0", "--data-dir", dir); code != ExitFailure || !strings.Contains(errOut, fmt.Sprint(server.Process.Pid)) {
		t.Errorf("second server: exit %d, stderr %q", code, errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	n, err := client.Database("oidkit").Collection("users").CountDocuments(ctx, bson.D{})
	if err != nil || n != 50 {
		t.Fatalf("users through the running server = %d, %v; want the 50 seeded", n, err)
	}
	names, err := client.Database("oidkit").ListCollectionNames(ctx, bson.D{})
	slices.Sort(names)
	if err != nil || fmt.Sprint(names) != "[oidkit_runs other users]" {
		t.Fatalf("collections = %v, %v; want users, other (through the server) and the run manifests", names, err)
	}
	if n, err := client.Database("oidkit").Collection("other").CountDocuments(ctx, bson.D{}); err != nil || n != 10 {
		t.Errorf("server holds %d documents of the second seed (%v), want 10", n, err)
	}
}

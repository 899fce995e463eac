// Package buildinfo owns what a build of oidkit says about itself: its
// version, the commit it was built from, the Go version, and the versions
// of the server and drivers it links, read from the binary's build
// information.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Modules are the modules whose versions Format prints: the drivers
// oidkit is built with decide what it can talk to and what verify ids
// compares against.
var Modules = []string{
	"go.mongodb.org/mongo-driver/v2",
	"go.mongodb.org/mongo-driver",
}

// Format is what oidkit --version prints for the build information bi (nil
// when the binary has none): the main module's version ("(devel)" when built
// in a checkout without a version), the VCS commit with its time and whether
// the tree had uncommitted changes, the Go version, and the version of each
// of Modules (with its replacement, if any).
func Format(bi *debug.BuildInfo) string {
	var b strings.Builder
	if bi == nil {
		b.WriteString("oidkit (no build information)\n")
		return b.String()
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	fmt.Fprintf(&b, "oidkit %s\n", v)
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		line := "commit   " + rev
		if settings["vcs.modified"] == "true" {
			line += " (modified: uncommitted changes)"
		}
		if t := settings["vcs.time"]; t != "" {
			line += ", " + t
		}
		b.WriteString(line + "\n")
	} else {
		b.WriteString("commit   unknown (built without VCS information)\n")
	}
	fmt.Fprintf(&b, "go       %s\n", bi.GoVersion)
	for _, path := range Modules {
		fmt.Fprintf(&b, "module   %s %s\n", path, moduleVersion(bi, path))
	}
	return b.String()
}

// moduleVersion is the version of the module path in bi's dependencies.
func moduleVersion(bi *debug.BuildInfo, path string) string {
	for _, m := range bi.Deps {
		if m.Path != path {
			continue
		}
		if r := m.Replace; r != nil {
			if r.Version != "" {
				return fmt.Sprintf("%s (replaced by %s %s)", m.Version, r.Path, r.Version)
			}
			return fmt.Sprintf("%s (replaced by %s)", m.Version, r.Path)
		}
		return m.Version
	}
	return "(not linked)"
}

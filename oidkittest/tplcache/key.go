package tplcache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/oidkit/oidkit/seed"
)

// FormatVersion numbers the layout of an entry file. An entry of another
// version is removed when read, and its template built again.
const FormatVersion = 1

// KeyInputs is all that a key hashes: what shapes a template's bytes. The
// test binary's build ID, VCS stamp and build settings are not among them,
// so editing a test leaves every key as it was.
type KeyInputs struct {
	// Content is the caller's hash of the plan (its collections, seed,
	// time base, span, _id strategies, counts) or of the fixture files'
	// names and bytes.
	Content string
	// Server names the kind of server the documents were read back from
	// (rules.Profile.Name).
	Server string
	// Format is FormatVersion; Generator is seed.DocumentFormat, which
	// changes whenever the documents a plan makes change.
	Format, Generator int
	// Oidkit and Gofakeit are the module versions the binary's build
	// information states, "" when it states none that names a release
	// (see Inputs).
	Oidkit, Gofakeit string
}

// Inputs are the key inputs of a template of content read from a server of
// kind server, in this binary. The module versions come from
// debug.ReadBuildInfo where they name a release; a test binary lists no
// dependencies, and a "(devel)" main module, a dirty tree or a replace
// directive names none: then the generator version stands for the code.
func Inputs(content, server string) KeyInputs {
	bi, _ := debug.ReadBuildInfo()
	o, g := versions(bi)
	return KeyInputs{Content: content, Server: server, Format: FormatVersion, Generator: seed.DocumentFormat, Oidkit: o, Gofakeit: g}
}

// Key is the hex SHA-256 of the inputs, each length-prefixed.
func (k KeyInputs) Key() string {
	h := sha256.New()
	for _, s := range []string{"oidkit template key", k.Content, k.Server, strconv.Itoa(k.Format), strconv.Itoa(k.Generator), k.Oidkit, k.Gofakeit} {
		_, _ = h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		_, _ = h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// versions are oidkit's and gofakeit's release versions in bi.
func versions(bi *debug.BuildInfo) (oidkit, gofakeit string) {
	if bi == nil {
		return "", ""
	}
	if bi.Main.Path == "github.com/oidkit/oidkit" {
		oidkit = release(&bi.Main)
	}
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/oidkit/oidkit":
			oidkit = release(d)
		case "github.com/brianvoe/gofakeit/v7":
			gofakeit = release(d)
		}
	}
	return oidkit, gofakeit
}

// release is the version m names if it is one that a release or a clean
// commit fixes: "" for "(devel)", a dirty tree, or a replacement by a
// directory (whose content any edit changes).
func release(m *debug.Module) string {
	v := m.Version
	if m.Replace != nil {
		if m.Replace.Version == "" {
			return ""
		}
		v = m.Replace.Path + "@" + m.Replace.Version
	}
	if v == "" || v == "(devel)" || strings.HasSuffix(v, "+dirty") {
		return ""
	}
	return v
}

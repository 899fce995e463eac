package rules

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckDatabaseName(t *testing.T) {
	for _, good := range []string{"oidkit", "shop_test", "a-b", strings.Repeat("d", MaxDatabaseNameLen), "ünï"} {
		if err := CheckDatabaseName(good); err != nil {
			t.Errorf("CheckDatabaseName(%q) = %v, want nil", good, err)
		}
	}
	for _, bad := range []string{"", "a*b", "a/b", `a\b`, "a.b", "a b", `a"b`, "a$b", "a<b", "a>b", "a:b", "a|b", "a?b", "a\x00b", strings.Repeat("d", MaxDatabaseNameLen+1)} {
		err := CheckDatabaseName(bad)
		var ne *NameError
		if !errors.As(err, &ne) || !errors.Is(err, ErrInvalidName) {
			t.Errorf("CheckDatabaseName(%q) = %v, want a *NameError", bad, err)
			continue
		}
		if ne.What != DatabaseName || ne.Name != bad || ne.Reason == "" {
			t.Errorf("CheckDatabaseName(%q) = %+v", bad, *ne)
		}
	}
}

func TestCheckCollectionName(t *testing.T) {
	for _, good := range []string{"users", "a.b", "system", "mysystem.x", "a*b", strings.Repeat("c", MaxCollectionNameLen)} {
		if err := CheckCollectionName(good); err != nil {
			t.Errorf("CheckCollectionName(%q) = %v, want nil", good, err)
		}
	}
	for _, bad := range []string{"", "a$b", "a\x00b", "system.users", ".a", "a.", strings.Repeat("c", MaxCollectionNameLen+1)} {
		err := CheckCollectionName(bad)
		var ne *NameError
		if !errors.As(err, &ne) || !errors.Is(err, ErrInvalidName) {
			t.Errorf("CheckCollectionName(%q) = %v, want a *NameError", bad, err)
			continue
		}
		if ne.What != CollectionName || ne.Name != bad || !strings.Contains(err.Error(), "collection name") {
			t.Errorf("CheckCollectionName(%q) = %+v", bad, *ne)
		}
	}
}

func TestCheckFileName(t *testing.T) {
	for _, good := range []string{"users", "a.b", "a..b", "a b", "ünï", "a:b"} {
		if err := CheckFileName(good); err != nil {
			t.Errorf("CheckFileName(%q) = %v, want nil", good, err)
		}
	}
	for _, bad := range []string{
		"", ".", "..", ".a", "a\x00b", "a$b",
		"/", "/etc/passwd", "a/b", "a/", "q/../../../victim", "x/../../evil", "../x", "..\\x",
		`\`, `a\b`, `C:\x`, `\\host\share\x`, "a/./b",
	} {
		err := CheckFileName(bad)
		var ne *NameError
		if !errors.As(err, &ne) || !errors.Is(err, ErrInvalidName) || ne.What != CollectionName || ne.Name != bad {
			t.Errorf("CheckFileName(%q) = %v, want a *NameError for the collection", bad, err)
		}
	}
}

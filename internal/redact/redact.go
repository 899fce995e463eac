// Package redact hides the password of a MongoDB connection string in
// anything shown: the CLI's messages and oidkittest's test failures.
package redact

import (
	"net/url"
	"strings"
)

// Mask replaces a password in anything shown.
const Mask = "****"

// URI hides the password of a connection string, well-formed or not.
func URI(uri string) string { return In(uri, uri) }

// Secrets are the spellings of the password of uri (as written and
// percent-decoded) that a message may contain. It parses by hand because the
// URIs whose messages leak are the ones net/url and the driver reject.
func Secrets(uri string) []string {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return nil
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil
	}
	_, pw, ok := strings.Cut(rest[:at], ":")
	if !ok || pw == "" {
		return nil
	}
	secrets := []string{pw}
	for _, unescape := range []func(string) (string, error){url.PathUnescape, url.QueryUnescape} {
		if d, err := unescape(pw); err == nil && d != pw && d != "" {
			secrets = append(secrets, d)
		}
	}
	if e := url.QueryEscape(pw); e != pw {
		secrets = append(secrets, e)
	}
	return secrets
}

// In replaces every spelling of uri's password in s.
func In(s, uri string) string {
	for _, secret := range Secrets(uri) {
		s = strings.ReplaceAll(s, secret, Mask)
	}
	return s
}

package infer

import "testing"

func TestNamesTarget(t *testing.T) {
	for _, tc := range []struct {
		field, target string
		want          bool
	}{
		{"userId", "users", true}, {"user_id", "users", true}, {"userIds", "users", true},
		{"images", "images", true}, {"image", "images", true}, {"student_id", "students", true},
		{"UserID", "users", true}, {"likes", "images", false}, {"id", "users", false},
		{"count", "counts_x", false}, {"s", "s", true}, {"ownerId", "users", false},
	} {
		if got := namesTarget(tc.field, tc.target); got != tc.want {
			t.Errorf("namesTarget(%q, %q) = %v; want %v", tc.field, tc.target, got, tc.want)
		}
	}
}

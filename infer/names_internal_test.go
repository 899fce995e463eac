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

func TestRepeatsApply(t *testing.T) {
	for _, tc := range []struct {
		path, typ string
		want      bool
	}{
		{"userId", TypeObjectID, true}, {"owner", TypeObjectID, true}, {"userId", TypeInt, true},
		{"a.user_id", TypeString, true}, {"productIds[]", TypeInt, false}, {"productIds", TypeLong, true},
		{"town", TypeString, false}, {"pageCount", TypeInt, false}, {"id", TypeInt, false},
		{"paid", TypeBool, false}, {"userId", TypeDouble, false}, {"paid", TypeInt, false},
		{"valid", TypeString, false}, {"USER_ID", TypeInt, true}, {"orderIDs", TypeString, true},
	} {
		if got := repeatsApply(tc.path, tc.typ); got != tc.want {
			t.Errorf("repeatsApply(%q, %q) = %v; want %v", tc.path, tc.typ, got, tc.want)
		}
	}
}

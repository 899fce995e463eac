package oid_test

import "fmt"

func fmtGo(v any) string { return fmt.Sprintf("%#v", v) }

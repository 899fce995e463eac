package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/oidkittest/tplcache"
)

const cacheDoes = "'oidkit cache' (or 'oidkit cache show') lists oidkittest's template cache; 'oidkit cache clear' empties it"

func (a *App) cacheCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "cache",
		Usage:     "show or clear the template cache of oidkittest (Go tests)",
		UsageText: "oidkit cache [show] | oidkit cache clear",
		Description: cacheDoes + ".\n\n" +
			"oidkittest keeps each template it builds (a plan's or fixture files' documents and\n" +
			"indexes) in this cache, so that the next test binary copies it instead of generating it.\n" +
			"The least recently used entries go when the total passes the bound.\n\n" +
			"Environment:\n" +
			fmt.Sprintf("   %-18s the cache's directory (templates in DIR/templates; default: the user cache directory's oidkit)\n", tplcache.DirEnv) +
			fmt.Sprintf("   %-18s on (default) or off\n", tplcache.ModeEnv) +
			fmt.Sprintf("   %-18s an earlier oidkit's: off, or the templates' directory (the two above win)\n", tplcache.LegacyEnv) +
			fmt.Sprintf("   %-18s the bound on the entries' total size (default %s), such as 2GiB", tplcache.MaxEnv, tplcache.FormatSize(tplcache.DefaultMax)),
		Subcommands: []*ucli.Command{
			{Name: "show", Usage: "list the entries and their total against the bound", UsageText: "oidkit cache show", Action: a.runCacheShow},
			{Name: "clear", Usage: "remove every entry and say how much it freed", UsageText: "oidkit cache clear", Action: a.runCacheClear},
		},
		Action: func(c *ucli.Context) error {
			if c.Args().Present() {
				a.commandNotFound(c, c.Args().First())
				return nil
			}
			return a.runCacheShow(c)
		},
	}
}

// openCache is the cache the environment describes; a bad value is bad
// input.
func openCache(c *ucli.Context) (*tplcache.Cache, error) {
	if c.NArg() > 0 {
		return nil, usageErrorf("cache %s: unexpected argument %q; expected none", c.Command.Name, c.Args().First())
	}
	cache, err := tplcache.FromEnv()
	var ee *tplcache.EnvError
	if errors.As(err, &ee) {
		return nil, usageErrorf("cache: %v", err)
	}
	return cache, err
}

func (a *App) runCacheShow(c *ucli.Context) error {
	cache, err := openCache(c)
	if err != nil {
		return err
	}
	if cache.Dir == "" {
		_, err := fmt.Fprintf(a.stdout, "template cache: off (%s)\n", cache.Why)
		return cacheWriteErr(err)
	}
	list, err := cache.List()
	if err != nil {
		return failuref("cache: %v", err)
	}
	return cacheWriteErr(writeCacheList(a.stdout, cache, list))
}

func writeCacheList(w io.Writer, cache *tplcache.Cache, list []tplcache.Info) error {
	var total int64
	for _, in := range list {
		total += in.Size
	}
	state := ""
	if cache.Off {
		state = fmt.Sprintf(" (off: %s)", cache.Why)
	}
	fmt.Fprintf(w, "template cache %s%s: %s, %s of %s (%s)\n", cache.Dir, state, cachePlural(len(list), "entry", "entries"), tplcache.FormatSize(total), tplcache.FormatSize(cache.Max), tplcache.MaxEnv)
	if n, size := cache.LegacySize(); n > 0 {
		fmt.Fprintf(w, "an earlier oidkit's template cache %s: %s, %s, never read now (oidkit cache clear removes it)\n", cache.Legacy, cachePlural(n, "file", "files"), tplcache.FormatSize(size))
	}
	if len(list) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSIZE\tLAST USED\tCOLLECTIONS (DOCUMENTS)\tWHAT")
	for _, in := range list {
		colls, what := "-", in.What
		if in.Err != nil {
			what = fmt.Sprintf("unreadable, removed when next used: %v", in.Err)
		}
		var cs []string
		for _, col := range in.Collections {
			cs = append(cs, fmt.Sprintf("%s (%d)", col.Name, col.Docs))
		}
		if len(cs) > 0 {
			colls = strings.Join(cs, ", ")
		}
		fmt.Fprintf(tw, "%.16s\t%s\t%s\t%s\t%s\n", in.Key, tplcache.FormatSize(in.Size), in.Used.Local().Format("2006-01-02 15:04:05"), colls, what)
	}
	return tw.Flush()
}

func (a *App) runCacheClear(c *ucli.Context) error {
	cache, err := openCache(c)
	if err != nil {
		return err
	}
	if cache.Dir == "" {
		_, err := fmt.Fprintf(a.stdout, "template cache: off (%s); nothing to clear\n", cache.Why)
		return cacheWriteErr(err)
	}
	r, err := cache.Clear()
	if err != nil {
		return failuref("cache clear: %v (%s removed so far, %s freed)", err, cachePlural(r.Entries, "entry", "entries"), tplcache.FormatSize(r.Bytes))
	}
	also := ""
	if r.LegacyFiles > 0 {
		also = fmt.Sprintf(" and the %s of an earlier oidkit's cache %s", cachePlural(r.LegacyFiles, "file", "files"), cache.Legacy)
	}
	_, err = fmt.Fprintf(a.stdout, "cleared %s: removed %s%s, freed %s (%d bytes)\n", cache.Dir, cachePlural(r.Entries, "entry", "entries"), also, tplcache.FormatSize(r.Bytes), r.Bytes)
	return cacheWriteErr(err)
}

func cachePlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func cacheWriteErr(err error) error {
	if err != nil {
		return failuref("cache: writing output: %w", err)
	}
	return nil
}

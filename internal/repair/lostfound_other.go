//go:build !unix

package repair

// oNoFollow is 0 where the system has no such flag; the record's folders
// are still checked not to be symlinks.
const oNoFollow = 0

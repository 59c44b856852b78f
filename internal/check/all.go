package check

// All is every check id a run can report: the transcript checks, the store
// checks and the replay checks (`check --provider`), in the order
// docs/checks.md lists them. `openclaw-doctor checks` prints it, and the
// shell completion of --only and --skip offers it.
func All() []Check {
	all := make([]Check, 0, len(Catalogue)+len(StoreCatalogue)+len(ReplayCatalogue))
	all = append(all, Catalogue...)
	all = append(all, StoreCatalogue...)
	return append(all, ReplayCatalogue...)
}

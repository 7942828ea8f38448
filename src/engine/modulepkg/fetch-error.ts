// The error of fetching a module package lives with the other errors (net/errors.ts), so the git
// runner below the module packages (git/) reports it too.
export { ModuleFetchError } from '../net/errors';

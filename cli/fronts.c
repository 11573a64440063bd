/*
 * Which headless front end a command reports through.
 */
#include "cli/fronts.h"

app_front *cli_front_for(const app_request *opts)
{
	return opts->json ? cli_front_json_new(opts) : cli_front_lines_new(opts);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "nvprofilectl __complete -- WORDS...": what the shells' completion scripts (client/completion) offer,
 * from the same tables as parsing and help, so that completion knows every verb, command, option and
 * option value there is and nothing else. */

#include <getopt.h>

#include "client-args.h"
#include "log.h"
#include "string-util.h"

static void print_matching(const char *prefix, const char *candidate, const char *suffix, const char *typed)
{
        if (startswith(candidate, typed))
                printf("%s%s%s\n", prefix, candidate, suffix);
}

/* The values of option o, each after prefix ("--json=" when typed in one word with it). */
static void complete_value(const ClientOption *o, const char *prefix, const char *typed)
{
        if (o->values)
                for (const char *const *v = o->values; *v; v++)
                        print_matching(prefix, *v, "", typed);
        else if (o->complete == COMPLETE_FILES)
                puts("@files");
        else if (o->complete == COMPLETE_DIRECTORIES)
                puts("@directories");
}

static void complete_option_name(const VerbSpec *spec, const char *typed)
{
        for (OptionId id = 0; id < _OPT_MAX; id++) {
                const ClientOption *o = &client_options[id];
                char name[64];

                if (spec ? !verb_spec_takes(spec, id) : id >= _OPT_GLOBAL_MAX)
                        continue;
                (void) snprintf(name, sizeof(name), "--%s", o->name);
                print_matching("", name, o->has_arg == required_argument ? "=" : "", typed);
        }
}

static void complete_names(const VerbSpec *specs, size_t n, const char *typed)
{
        for (size_t i = 0; i < n; i++)
                print_matching("", specs[i].name, "", typed);
}

/* "help VERB COMMAND": verbs, then that verb's commands. */
static void complete_help(const char *const *args, size_t n_args, const char *typed)
{
        const VerbSpec *v;

        if (n_args == 0) {
                complete_names(client_verbs, client_n_verbs, typed);
                return;
        }
        v = verb_spec_find(client_verbs, client_n_verbs, args[0]);
        if (n_args == 1 && v)
                complete_names(v->commands, v->n_commands, typed);
}

int client_complete(int n_words, char **words)
{
        const char *typed = n_words > 0 ? words[n_words - 1] : "", *args[2];
        const ClientOption *awaiting = NULL; /* the option whose value the previous word left out */
        const VerbSpec *verb = NULL, *command = NULL, *spec;
        size_t n_args = 0;
        bool options_end = false;

        for (int i = 0; i + 1 < n_words; i++) {
                const char *w = words[i];

                if (awaiting) {
                        awaiting = NULL;
                        continue;
                }
                if (!options_end && streq(w, "--")) {
                        options_end = true;
                        continue;
                }
                if (!options_end && w[0] == '-' && w[1] != '\0') {
                        const ClientOption *o = startswith(w, "--") ? client_option_by_name(w + 2) : NULL;

                        if (o && o->has_arg == required_argument)
                                awaiting = o;
                        continue;
                }
                if (!verb) {
                        verb = verb_spec_find(client_verbs, client_n_verbs, w);
                        if (!verb)
                                return 0; /* nothing sensible follows an unknown verb */
                } else if (verb->n_commands > 0 && !command && n_args == 0 &&
                                (command = verb_spec_find(verb->commands, verb->n_commands, w)))
                        continue;
                else if (n_args < ELEMENTSOF(args))
                        args[n_args++] = w;
                else
                        n_args++;
        }
        spec = command ? command : verb;

        if (awaiting) {
                complete_value(awaiting, "", typed);
                return 0;
        }
        if (!options_end && startswith(typed, "--") && strchr(typed, '=')) {
                _cleanup_free_ char *name = strndup(typed + 2, strcspn(typed + 2, "="));
                const ClientOption *o;

                if (!name)
                        return log_oom();
                o = client_option_by_name(name);
                if (o && o->has_arg != no_argument &&
                                (!spec || verb_spec_takes(spec, (OptionId) (o - client_options)))) {
                        _cleanup_free_ char *prefix = strndup(typed, strlen(name) + 3);

                        if (!prefix)
                                return log_oom();
                        complete_value(o, prefix, typed + strlen(prefix));
                }
                return 0;
        }
        if (!options_end && typed[0] == '-') {
                complete_option_name(spec, typed);
                return 0;
        }
        if (!verb)
                complete_names(client_verbs, client_n_verbs, typed);
        else if (streq(verb->name, "help"))
                complete_help(args, n_args, typed);
        else if (verb->n_commands > 0 && !command && n_args == 0)
                complete_names(verb->commands, verb->n_commands, typed);
        else if (spec->complete_args == COMPLETE_FILES && n_args < spec->max_args)
                puts("@files");
        return 0;
}

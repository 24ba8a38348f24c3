/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl's help, written from the tables: the overview (--help), one verb with its commands and
 * options ("report --help", "help report"), or one command ("help report summary"); and the closest name
 * for "did you mean". */

#include <getopt.h>

#include "client-args.h"
#include "string-util.h"

#define HELP_WIDTH 79
#define HELP_COLUMN 25

/* text wrapped to HELP_WIDTH, each line starting at column indent; the first continues a line of
 * column characters already written. */
static void print_wrapped(const char *text, size_t column, size_t indent)
{
        const char *p = text;

        while (*p != '\0') {
                size_t word = strcspn(p, " ");

                if (column > indent && column + 1 + word > HELP_WIDTH) {
                        printf("\n%*s", (int) indent, "");
                        column = indent;
                } else if (column > indent) {
                        putchar(' ');
                        column++;
                } else if (column < indent) {
                        printf("%*s", (int) (indent - column), "");
                        column = indent;
                }
                printf("%.*s", (int) word, p);
                column += word;
                p += word;
                p += strspn(p, " ");
        }
        putchar('\n');
}

/* "  label     text", the text at HELP_COLUMN, or on the next line when the label is too long. */
static void print_entry(const char *label, const char *text)
{
        int n = printf("  %s", label);

        if (n >= HELP_COLUMN - 1) {
                putchar('\n');
                n = 0;
        }
        print_wrapped(text, (size_t) n, HELP_COLUMN);
}

static void option_label(const ClientOption *o, char *buf, size_t size)
{
        char s[4] = "   ";

        if (o->short_name != 0)
                (void) snprintf(s, sizeof(s), "-%c ", o->short_name);
        if (o->has_arg == required_argument)
                (void) snprintf(buf, size, "%s--%s=%s", s, o->name, o->metavar);
        else if (o->has_arg == optional_argument)
                (void) snprintf(buf, size, "%s--%s[=%s]", s, o->name, o->metavar);
        else
                (void) snprintf(buf, size, "%s--%s", s, o->name);
}

static void print_option(const ClientOption *o, const char *takers)
{
        _cleanup_free_ char *text = NULL;
        char label[64];

        option_label(o, label, sizeof(label));
        if (takers && asprintf(&text, "%s; for %s", o->help, takers) < 0)
                text = NULL;
        print_entry(label, text ? text : o->help);
}

static void print_global_options(void)
{
        for (OptionId id = 0; id < _OPT_GLOBAL_MAX; id++)
                print_option(&client_options[id], NULL);
}

static void print_overview(void)
{
        printf("Usage: nvprofilectl [OPTIONS...] VERB [ARGS...]\n"
               "\n"
               "Ask nvprofiled which NVIDIA application-profile rules match running processes, which\n"
               "settings take effect, and why; check rc files without the daemon; read Nsight Compute\n"
               "reports.\n"
               "\n"
               "Verbs:\n");
        for (size_t i = 0; i < client_n_verbs; i++) {
                const VerbSpec *v = &client_verbs[i];
                char label[64];

                (void) snprintf(label, sizeof(label), "%s%s%s", v->name, v->args ? " " : "", v->args ? v->args : "");
                print_entry(label, v->summary);
        }
        printf("\nOptions of every verb:\n");
        print_global_options();
        printf("\n"
               "A verb's own options and commands: nvprofilectl VERB --help, or nvprofilectl help VERB.\n"
               "\n"
               "Environment:\n"
               "  DBUS_SYSTEM_BUS_ADDRESS, DBUS_SESSION_BUS_ADDRESS  the buses' addresses, as for every\n"
               "                         D-Bus client\n"
               "  HOME                   check without paths: whose per-user rc files are checked\n"
               "  NVPROFILED_PYTHON      report rules: the python3 to run the rules with\n"
               "  NVPROFILED_PYTHON_DIR  report rules: the folder (an absolute path) of\n"
               "                         the nvprofiled Python package; PYTHONPATH is not used\n"
               "\n"
               "Exit status:\n"
               "  0  success\n"
               "  1  failure: the daemon is not running or refused the request, a process does not\n"
               "     exist, or (check, errors) an rc file has errors, or (fdinfo) a file cannot\n"
               "     be read or is not DRM usage fdinfo, or (report diff --fail-above) a metric got\n"
               "     worse by more than allowed\n"
               "  2  usage error: unknown verb or option, missing or extra arguments, options that\n"
               "     cannot be combined\n"
               "\n"
               "See nvprofilectl(1), nvprofiled(8) and nvprofiled.conf(5).\n");
}

static void print_usage_entry(const char *verb, const VerbSpec *spec, const char *text)
{
        char label[96];

        if (spec && spec->name != verb)
                (void) snprintf(label, sizeof(label), "%s %s%s%s", verb, spec->name, spec->args ? " " : "",
                                spec->args ? spec->args : "");
        else
                (void) snprintf(label, sizeof(label), "%s", verb);
        print_entry(label, text);
}

/* The options of command, or of verb and all its commands, each once, in the order the tables give them. */
static size_t option_order(const VerbSpec *verb, const VerbSpec *command, OptionId ret[static _OPT_MAX])
{
        bool seen[_OPT_MAX] = { false };
        size_t n = 0;

        for (size_t i = 0; i <= verb->n_commands; i++) {
                const VerbSpec *spec = i == 0 ? verb : &verb->commands[i - 1];

                if (command && spec != command)
                        continue;
                for (const OptionId *o = spec->options; o && *o != _OPT_MAX; o++)
                        if (!seen[*o]) {
                                seen[*o] = true;
                                ret[n++] = *o;
                        }
        }
        return n;
}

/* One verb: its usage, its description, its commands (each in full), and the options of the verb and
 * its commands, each with the commands that take it when not all do. Or one command of it. */
static void print_verb(const VerbSpec *verb, const VerbSpec *command)
{
        const VerbSpec *spec = command ? command : verb;
        OptionId ids[_OPT_MAX];
        size_t n_ids;

        if (command)
                printf("Usage: nvprofilectl [OPTIONS...] %s %s%s%s\n\n", verb->name, command->name,
                                command->args ? " " : "", command->args ? command->args : "");
        else
                printf("Usage: nvprofilectl [OPTIONS...] %s%s%s\n\n", verb->name, verb->args ? " " : "",
                                verb->args ? verb->args : "");
        print_wrapped(spec->help, 0, 0);

        if (!command && verb->n_commands > 0) {
                printf("\nCommands:\n");
                if (verb->commands_optional)
                        print_usage_entry(verb->name, NULL, verb->summary);
                for (size_t i = 0; i < verb->n_commands; i++)
                        print_usage_entry(verb->name, &verb->commands[i], verb->commands[i].help);
        }

        n_ids = option_order(verb, command, ids);
        for (size_t k = 0; k < n_ids; k++) {
                OptionId id = ids[k];
                size_t n_takers = 0, n_specs = command ? 1 : 1 + verb->n_commands;
                char buf[128] = "";

                if (command)
                        n_takers = verb_spec_takes(command, id);
                else {
                        if (verb_spec_takes(verb, id)) {
                                n_takers++;
                                strcat(buf, verb->name);
                        }
                        for (size_t i = 0; i < verb->n_commands; i++)
                                if (verb_spec_takes(&verb->commands[i], id)) {
                                        if (strlen(buf) + strlen(verb->commands[i].name) + 3 >= sizeof(buf))
                                                continue;
                                        if (n_takers++ > 0)
                                                strcat(buf, ", ");
                                        strcat(buf, verb->commands[i].name);
                                }
                        if (verb->n_commands > 0 && !verb->commands_optional)
                                n_specs--; /* "report" alone runs nothing */
                }
                if (k == 0)
                        printf("\nOptions:\n");
                print_option(&client_options[id], n_takers < n_specs ? buf : NULL);
        }
        printf("\nOptions of every verb (nvprofilectl --help):");
        for (OptionId id = 0; id < _OPT_GLOBAL_MAX; id++) {
                char label[64];

                option_label(&client_options[id], label, sizeof(label));
                printf("%s%s", id == 0 ? "\n  " : ", ", label + strspn(label, " "));
        }
        putchar('\n');
}

int client_help(char **words, size_t n_words)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        const VerbSpec *verb, *command = NULL;

        if (n_words == 0) {
                print_overview();
                return 0;
        }
        verb = verb_spec_find(client_verbs, client_n_verbs, words[0]);
        if (!verb) {
                const char *names[64], *closest;

                assert(client_n_verbs <= ELEMENTSOF(names));
                for (size_t i = 0; i < client_n_verbs; i++)
                        names[i] = client_verbs[i].name;
                closest = closest_name(words[0], names, client_n_verbs);
                if (closest)
                        return usage_error("No help for \"%s\", which is no verb; did you mean %s?", esc(&e, words[0]),
                                        closest);
                return usage_error("No help for \"%s\", which is no verb; see nvprofilectl --help.", esc(&e, words[0]));
        }
        if (n_words >= 2 && verb->n_commands > 0) {
                command = verb_spec_find(verb->commands, verb->n_commands, words[1]);
                if (!command)
                        return usage_error("%s has no command \"%s\"; see nvprofilectl %s --help.", verb->name,
                                        esc(&e, words[1]), verb->name);
        }
        print_verb(verb, command);
        return 0;
}

int verb_help(int argc, char *argv[])
{
        return client_help(argv + 1, (size_t) argc - 1) < 0 ? EXIT_USAGE : EXIT_SUCCESS;
}

const char *closest_name(const char *word, const char *const *names, size_t n)
{
        const char *best = NULL;
        size_t best_distance = SIZE_MAX, len = strlen(word);

        for (size_t i = 0; i < n; i++) {
                size_t d = string_distance(word, names[i], false);

                if (d < best_distance) {
                        best = names[i];
                        best_distance = d;
                }
        }
        /* Two edits at most, and fewer than the word has letters: "x" means no verb in particular. */
        if (best_distance <= 2 && best_distance < len)
                return best;
        /* Or a name the word begins with: "--sort-by" for --sort. */
        best = NULL;
        for (size_t i = 0; i < n; i++)
                if (strlen(names[i]) >= 3 && startswith(word, names[i]) && (!best || strlen(names[i]) > strlen(best)))
                        best = names[i];
        return best;
}

package dev.pulsebus.command;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * One call of a command: who sent it, its arguments, and the way to answer.
 *
 * <p>Arguments are the words after the command (and after the sub-command), split on whitespace;
 * double quotes group words ({@code /say "hello world" 3} has two arguments) and a backslash escapes
 * a quote or a backslash inside them. For a command matched by a regular expression, the arguments are
 * the expression's groups.
 *
 * <p>The typed accessors throw {@link CommandArgumentException}, which the router turns into an answer
 * with the command's usage line ({@code /roll abc} answers "argument 1: expected a number, got 'abc'").
 * Used by one thread, the one running the handler.
 */
public interface CommandCall {

    /** The message this call came from. */
    CommandSource source();

    /** The command's name as registered, with the parent's for a sub-command ({@code "kv get"}). */
    String command();

    /** The name or alias the user typed, without the prefix. */
    String label();

    int argCount();

    /** Argument {@code index} (from 0). */
    String arg(int index);

    /** Argument {@code index}, or {@code fallback} when the user gave fewer. */
    String arg(int index, String fallback);

    long argLong(int index);

    int argInt(int index);

    double argDouble(int index);

    List<String> args();

    /** The raw text after the command (and sub-command), leading whitespace removed; quotes kept. */
    String rest();

    /** Answers in the chat the message came from; completes with the platform's message id. */
    default CompletionStage<String> reply(String text) {
        return source().reply(text);
    }
}

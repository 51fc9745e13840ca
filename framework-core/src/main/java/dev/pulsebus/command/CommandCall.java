package dev.pulsebus.command;

import dev.pulsebus.event.Ask;
import dev.pulsebus.event.AskException;
import dev.pulsebus.event.MessageEvent;
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
 *
 * <h2>Asking</h2>
 * {@link #ask(String)} puts a question to the caller and returns a stage completed by their next message
 * in this chat (consumed: it runs no command), or failed with an {@link AskException}. The ask belongs to
 * the command: unregistering it (a module unloading) fails it with {@link AskException.Reason#UNLOADED}.
 * In a {@linkplain Command#blocking() blocking} command the dialog reads as straight-line code:
 *
 * <pre>{@code
 * String name = call.askText("What is your name?");
 * int age = call.askInt("How old are you?");   // "abc" is answered "Expected a number" and asked again
 * }</pre>
 *
 * An {@link AskException} thrown out of a blocking handler ends the command: a timeout or too many bad
 * answers are answered from the catalogue, a {@code /cancel} was answered already.
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

    /** Asks the caller {@code prompt}; see "Asking" above. Does not block. */
    default CompletionStage<MessageEvent> ask(String prompt) {
        return ask(Ask.of(prompt));
    }

    /** Asks as {@code ask} says; see "Asking" above. Does not block. */
    CompletionStage<MessageEvent> ask(Ask ask);

    /**
     * Waits for {@code ask}'s answer. Only in a {@linkplain Command#blocking() blocking} command, which runs
     * on a virtual thread of its own: anywhere else it would hold the thread that must deliver the answer.
     *
     * @throws AskException when the ask fails (timeout, {@code /cancel}, unload, ...)
     * @throws IllegalStateException when the command is not blocking
     */
    MessageEvent await(CompletionStage<MessageEvent> ask);

    /** Asks and waits: the answer's text without surrounding spaces. Blocking commands only. */
    default String askText(String prompt) {
        return askText(Ask.of(prompt));
    }

    /** Asks as {@code ask} says and waits: the answer's text without surrounding spaces. Blocking commands only. */
    default String askText(Ask ask) {
        return await(ask(ask)).message().plainText().strip();
    }

    /**
     * Asks and waits for a whole number: an answer that is not one is told "Expected a number" (in the
     * caller's language) and asked again, up to {@link Ask#attempts()} answers (3 by default), after which
     * {@link AskException.Reason#INVALID} is thrown. Blocking commands only.
     */
    default int askInt(String prompt) {
        return askInt(Ask.of(prompt));
    }

    /** {@link #askInt(String)} with the ask's settings. */
    int askInt(Ask ask);
}

package dev.pulsebus.event;

import dev.pulsebus.internal.Require;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A question put to a chat, answered by a later message: what {@link MessageEvent#ask(Ask)} and a
 * command's {@code call.ask(...)} take.
 *
 * <p>By default the answer is <b>the next message of the same user in the same chat</b>, it is
 * <b>consumed</b> (it runs no command and reaches no other handler), and the ask fails with
 * {@link AskException.Reason#TIMEOUT} after the pipeline's ask timeout (5 minutes unless configured).
 * {@link #anyoneInChat()} widens who may answer; {@link #when} and {@link #number()} narrow which messages
 * answer (the others go their usual way); {@link #observe()} lets the answer go on as if no one had asked.
 *
 * <pre>{@code
 * event.ask(Ask.of("How old are you?").number().timeout(Duration.ofMinutes(1)))
 *         .thenAccept(answer -> answer.reply("Noted: " + answer.message().plainText()));
 * }</pre>
 *
 * <p>Immutable: each method returns a new {@code Ask}, so one may be kept in a constant and reused.
 */
public final class Ask {

    private final String prompt;
    private final @Nullable Duration timeout;
    private final boolean anyone;
    private final @Nullable Predicate<? super MessageEvent> filter;
    private final boolean observe;
    private final int attempts;

    private Ask(String prompt, @Nullable Duration timeout, boolean anyone,
            @Nullable Predicate<? super MessageEvent> filter, boolean observe, int attempts) {
        this.prompt = prompt;
        this.timeout = timeout;
        this.anyone = anyone;
        this.filter = filter;
        this.observe = observe;
        this.attempts = attempts;
    }

    /** Asks {@code prompt} (sent as a reply to the message that asks); an empty prompt sends nothing. */
    public static Ask of(String prompt) {
        return new Ask(Objects.requireNonNull(prompt, "prompt"), null, false, null, false, 3);
    }

    /** Waits at most {@code timeout} for the answer (instead of the pipeline's default). */
    public Ask timeout(Duration timeout) {
        return new Ask(prompt, Require.positive(timeout, "ask timeout"), anyone, filter, observe, attempts);
    }

    /** Any user of the chat may answer, not only the one who was asked. */
    public Ask anyoneInChat() {
        return new Ask(prompt, timeout, true, filter, observe, attempts);
    }

    /** Only messages {@code accepts} holds for answer (in addition to any filter given before). */
    public Ask when(Predicate<? super MessageEvent> accepts) {
        Objects.requireNonNull(accepts, "accepts");
        Predicate<? super MessageEvent> before = filter;
        Predicate<MessageEvent> both = before == null ? accepts::test : m -> before.test(m) && accepts.test(m);
        return new Ask(prompt, timeout, anyone, both, observe, attempts);
    }

    /** Only a message whose text is a number ({@code 42}, {@code -3.5}) answers. */
    public Ask number() {
        return when(Ask::isNumber);
    }

    /** The answer is seen, not consumed: it also runs as a command or reaches the bus, as if unasked. */
    public Ask observe() {
        return new Ask(prompt, timeout, anyone, filter, true, attempts);
    }

    /**
     * How many answers a typed ask ({@code call.askInt}) reads before it gives up on bad ones, re-asking
     * after each; default 3.
     */
    public Ask attempts(int attempts) {
        return new Ask(prompt, timeout, anyone, filter, observe, Require.atLeast(attempts, 1, "attempts"));
    }

    /** This ask with another prompt (a re-prompt), everything else kept. */
    public Ask prompt(String prompt) {
        return new Ask(Objects.requireNonNull(prompt, "prompt"), timeout, anyone, filter, observe, attempts);
    }

    public String prompt() {
        return prompt;
    }

    /** The timeout given, or {@code null} for the pipeline's default. */
    public @Nullable Duration timeout() {
        return timeout;
    }

    public boolean anyone() {
        return anyone;
    }

    public boolean observes() {
        return observe;
    }

    public int attempts() {
        return attempts;
    }

    /**
     * Whether {@code message} answers this ask as far as its filters go (not who sent it: that is the
     * asker's chat and user). A filter that throws counts as "no".
     */
    public boolean accepts(MessageEvent message) {
        try {
            return filter == null || filter.test(message);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether {@code message}'s text, without surrounding spaces, is a decimal number. */
    public static boolean isNumber(MessageEvent message) {
        String text = message.message().plainText().strip();
        if (text.isEmpty() || text.length() > 64) {
            return false;
        }
        try {
            new BigDecimal(text);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "Ask[" + prompt + (anyone ? ", anyone in chat" : "") + (filter != null ? ", filtered" : "")
                + (observe ? ", observing" : "") + (timeout != null ? ", " + timeout : "") + "]";
    }
}

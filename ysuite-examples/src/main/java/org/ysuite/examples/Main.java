package org.ysuite.examples;

import java.util.Arrays;

/**
 * Entry point of the executable examples jar, whose manifest grants native access
 * ({@code Enable-Native-Access: ALL-UNNAMED}, honoured for {@code java -jar}):
 * <pre>
 * java -jar ysuite-examples/target/ysuite-examples.jar poll|epoll|nio|netty|readme|shm-producer|shm-consumer|amqp [args...]
 * java -jar ysuite-examples/target/ysuite-examples.jar local_thr|remote_thr|local_lat|remote_lat &lt;endpoint&gt; &lt;message-size&gt; &lt;count&gt;
 * java -jar ysuite-examples/target/ysuite-examples.jar peers_server router|pub &lt;bind-to&gt; &lt;n&gt;
 * java -jar ysuite-examples/target/ysuite-examples.jar idle_cpu &lt;seconds&gt; &lt;heartbeat-ms&gt; [connections [settle-seconds]]
 * </pre>
 */
public final class Main {

    private Main() {
    }

    /**
     * Runs the example named by {@code args[0]}.
     *
     * @param args the example ({@code poll}, {@code epoll}, {@code nio}, {@code netty}, {@code readme},
     *     {@code shm-producer}, {@code shm-consumer}, {@code amqp}, or libzmq's perf tools over ysuite-zmq:
     *     {@code local_thr}, {@code remote_thr}, {@code local_lat}, {@code remote_lat}: {@link ZmqPerf}; the many-peers
     *     server {@code peers_server}: {@link ZmqPeers}; what idle connections cost, {@code idle_cpu}:
     *     {@link ZmqIdle}) and its arguments
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "";
        String[] rest = args.length > 0 ? Arrays.copyOfRange(args, 1, args.length) : args;
        switch (which) {
            case "poll":
                PollLoop.main(rest);
                break;
            case "epoll":
                EpollLoop.main(rest);
                break;
            case "nio":
                NioSelectorLoop.main(rest);
                break;
            case "netty":
                NettyEchoService.main(rest);
                break;
            case "readme":
                ReadmeExamples.main(rest);
                break;
            case "shm-producer":
                org.ysuite.examples.shm.Producer.main(rest);
                break;
            case "shm-consumer":
                org.ysuite.examples.shm.Consumer.main(rest);
                break;
            case "amqp":
                AmqpOrders.main(rest);
                break;
            case "local_thr":
            case "remote_thr":
            case "local_lat":
            case "remote_lat":
                ZmqPerf.main(which, rest);
                break;
            case "peers_server":
                ZmqPeers.main(rest);
                break;
            case "idle_cpu":
                ZmqIdle.main(rest);
                break;
            default:
                System.err.println("usage: java -jar ysuite-examples.jar poll|epoll|nio|readme "
                        + "[socketMessages [pipeMessagesPerWriter [socketpair|eventfd]]]\n"
                        + "       java -jar ysuite-examples.jar netty [requestsPerClient [clients [epoll|nio]]]\n"
                        + "       java -jar ysuite-examples.jar shm-producer <file> <count>\n"
                        + "       java -jar ysuite-examples.jar shm-consumer <file> [waitSeconds]\n"
                        + "       java -jar ysuite-examples.jar amqp <amqp-uri> [ordersPerWriter [writers]]\n"
                        + "       java -jar ysuite-examples.jar local_thr|local_lat <bind-to> <message-size> <count>\n"
                        + "       java -jar ysuite-examples.jar remote_thr|remote_lat <connect-to> <message-size> <count>\n"
                        + "       java -jar ysuite-examples.jar peers_server router|pub <bind-to> <n>\n"
                        + "       java -jar ysuite-examples.jar idle_cpu <seconds> <heartbeat-ms> [connections [settle-seconds]]");
                System.exit(2);
        }
    }
}
